#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace shedlock {
namespace {

/// `"text"`. Appending instead of `"\"" + text + "\""` also keeps GCC 12 at -O3 from a false
/// -Wrestrict warning (GCC bug 105329), which -Werror release builds would fail on.
std::string in_quotes(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    out.append(text);
    out += '"';
    return out;
}

/// What an error about a URI that did not parse may show. Text that could hold credentials
/// (userinfo before an '@', a password query option) is never shown, in whole or in part: with a
/// '/', '@' or '?' in an unencoded password no parser can tell where the password ends, so no
/// masking of the text can be trusted either.
struct uri_text {
    std::string shown;
    bool secret = false;
};

bool may_hold_credentials(std::string_view text) {
    if (text.find('@') != std::string_view::npos) return true;
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find("password") != std::string::npos || lower.find("pw=") != std::string::npos;
}

uri_text shown_for_errors(std::string_view text) {
    if (!may_hold_credentials(text)) return {std::string(text), false};
    const auto colon = text.find(':');
    const std::string scheme(text.substr(0, colon == std::string_view::npos ? 0 : colon));
    return {scheme + ":<not shown: may hold a password>", true};
}

/// `detail` quotes part of the text, so it is left out when the text may hold credentials.
[[noreturn]] void malformed(const uri_text& uri, const std::string& why, const std::string& detail = "") {
    throw configuration_error("provider URI \"" + uri.shown + "\" is malformed (" + why +
                              (uri.secret || detail.empty() ? "" : ": " + detail) +
                              "); write e.g. sqlite:locks.db, postgresql://user:pw@host:5432/db?table=shedlock, "
                              "mysql://user:pw@host:3306/db, redis://:pw@host:6379/0 or memory:" +
                              (uri.secret ? "; percent-encode '/', '@', '?', '#', '%' and '&' in a password "
                                            "(%2F, %40, %3F, %23, %25, %26)"
                                          : ""));
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

std::string decode(std::string_view s, const uri_text& shown) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) malformed(shown, "'%' must be followed by two hex digits");
        const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0) malformed(shown, "'%' must be followed by two hex digits");
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

void parse_query(std::string_view q, provider_uri& uri, const uri_text& shown) {
    while (!q.empty()) {
        const auto amp = q.find('&');
        const std::string_view pair = q.substr(0, amp);
        q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
        if (pair.empty()) continue;
        const auto eq = pair.find('=');
        if (eq == std::string_view::npos || eq == 0) malformed(shown, "a query part is not key=value", in_quotes(pair));
        const std::string key = decode(pair.substr(0, eq), shown);
        if (uri.query.count(key)) malformed(shown, "a query key is given twice", in_quotes(key));
        uri.query[key] = decode(pair.substr(eq + 1), shown);
    }
}

void parse_authority(std::string_view auth, provider_uri& uri, const uri_text& shown) {
    const auto at = auth.rfind('@');
    if (at != std::string_view::npos) {
        const std::string_view userinfo = auth.substr(0, at);
        auth = auth.substr(at + 1);
        const auto colon = userinfo.find(':');
        uri.user = decode(userinfo.substr(0, colon), shown);
        if (colon != std::string_view::npos) uri.password = decode(userinfo.substr(colon + 1), shown);
    }
    if (auth.find(',') != std::string_view::npos) {
        // A host list (libpq's host1:port1,host2:port2): kept whole for the provider to split
        // and check (postgres_options::from_uri); a provider without host lists refuses it.
        uri.host = std::string(auth);
        return;
    }
    std::string_view host = auth;
    if (!auth.empty() && auth.front() == '[') {  // [::1]:5432
        const auto close = auth.find(']');
        if (close == std::string_view::npos) malformed(shown, "unclosed '[' in host");
        host = auth.substr(1, close - 1);
        auth = auth.substr(close + 1);
        if (!auth.empty() && auth.front() != ':') malformed(shown, "unexpected text after ']'");
    } else {
        const auto colon = auth.rfind(':');
        // ::1 would be host ":" port 1, and ::1:5432 is ambiguous: an IPv6 address takes brackets.
        if (colon != std::string_view::npos && auth.find(':') != colon)
            malformed(shown, "an IPv6 address needs brackets, e.g. [::1]:5432", in_quotes(auth));
        host = auth.substr(0, colon);
        auth = colon == std::string_view::npos ? std::string_view{} : auth.substr(colon);
    }
    uri.host = std::string(host);
    if (!auth.empty()) {
        const std::string port(auth.substr(1));
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(port) == 0 || std::stoi(port) > 65535)
            malformed(shown, "the port is not a number from 1 to 65535", in_quotes(port));
        uri.port = static_cast<std::uint16_t>(std::stoi(port));
    }
}

/// With "//", the userinfo ends at the last '@' before the first '/' or '?'. A raw '@' after that
/// point means a password cut short by an unencoded '/' or '?' (`//u:12/secret@host`): parsing
/// on would put its pieces in the port, path or query, which redacted() and messages show.
/// (sqlite:///dir/a@b.db has an empty authority and no such ambiguity.)
void reject_cut_password(std::string_view rest, const uri_text& shown) {
    if (rest.substr(0, 2) != "//") return;
    rest.remove_prefix(2);
    const auto authority_end = rest.find_first_of("/?");
    if (authority_end == 0 || authority_end == std::string_view::npos) return;
    if (rest.find('@', authority_end) != std::string_view::npos)
        malformed(shown, "an '@' after the host; write an '@' in a database name or option value as %40");
}

}  // namespace

std::string provider_uri::redacted() const {
    std::string out = scheme + ":";
    if (!host.empty() || !user.empty() || password) {
        out += "//";
        if (!user.empty() || password) out += user + (password ? ":***" : "") + "@";
        const bool ipv6 = host.find(':') != std::string::npos && host.find(',') == std::string::npos;
        out += ipv6 ? "[" + host + "]" : host;
        if (port) {
            out += ':';  // appended piecewise: "literal" + std::to_string() trips GCC 12's -Wrestrict at -O3
            out += std::to_string(*port);
        }
        if (!path.empty()) out += "/" + path;
    } else {
        out += path;
    }
    char sep = '?';
    for (const auto& [k, v] : query) {
        out += sep + k + "=" + (is_secret_uri_key(k) ? "***" : v);
        sep = '&';
    }
    return out;
}

bool is_secret_uri_key(std::string_view key) {
    // password_file, password_env and a further secret's sentinel_password_file: where, not what.
    const auto ends_with = [key](std::string_view tail) {
        return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
    };
    if (ends_with("password_file") || ends_with("password_env")) return false;
    return key.find("password") != std::string_view::npos || key == "pw";
}

provider_uri parse_provider_uri(std::string_view text) {
    const uri_text shown = shown_for_errors(text);
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) malformed(shown, "no scheme such as sqlite: or postgresql://");
    provider_uri uri;
    for (char c : text.substr(0, colon)) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
            malformed(shown, "bad character in scheme");
        uri.scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    std::string_view rest = text.substr(colon + 1);
    reject_cut_password(rest, shown);
    const auto question = rest.find('?');
    if (question != std::string_view::npos) {
        parse_query(rest.substr(question + 1), uri, shown);
        rest = rest.substr(0, question);
    }
    if (rest.substr(0, 2) == "//") {
        rest.remove_prefix(2);
        const auto slash = rest.find('/');
        parse_authority(rest.substr(0, slash), uri, shown);
        if (slash != std::string_view::npos) {
            // sqlite:///abs/path keeps its leading '/'; a database name drops it.
            uri.path = decode(uri.host.empty() ? rest.substr(slash) : rest.substr(slash + 1), shown);
        }
    } else {
        uri.path = decode(rest, shown);
    }
    return uri;
}

std::optional<std::string> uri_options::take(const std::string& key) {
    known_.insert(key);
    auto it = uri_.query.find(key);
    if (it == uri_.query.end()) return std::nullopt;
    return it->second;
}

void uri_options::bad_value(const std::string& key, const std::string& value, const std::string& expected) const {
    throw configuration_error("provider URI \"" + uri_.redacted() + "\": option " + key + "=" +
                              (is_secret_uri_key(key) ? "***" : value) +
                              " is invalid; expected " + expected);
}

std::optional<std::string> uri_options::text(const std::string& key) { return take(key); }

std::optional<bool> uri_options::flag(const std::string& key) {
    auto v = take(key);
    if (!v) return std::nullopt;
    if (*v == "true" || *v == "1" || *v == "yes" || *v == "on") return true;
    if (*v == "false" || *v == "0" || *v == "no" || *v == "off") return false;
    bad_value(key, *v, "true or false");
}

std::optional<std::chrono::milliseconds> uri_options::duration(const std::string& key) {
    auto v = take(key);
    if (!v) return std::nullopt;
    try {
        auto d = parse_duration(*v, key);
        if (d.count() < 0) bad_value(key, *v, "a positive duration such as 5s or PT5S");
        return d;
    } catch (const configuration_error&) {
        bad_value(key, *v, "a duration such as 5s, 500ms or PT5S");
    }
}

std::optional<std::int64_t> uri_options::integer(const std::string& key, std::int64_t min, std::int64_t max) {
    auto v = take(key);
    if (!v) return std::nullopt;
    const std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    if (v->empty() || v->size() > 18 || v->find_first_not_of("0123456789") != std::string::npos) bad_value(key, *v, range);
    const std::int64_t n = std::stoll(*v);
    if (n < min || n > max) bad_value(key, *v, range);
    return n;
}

namespace {

/// Why `path` cannot be read as a file, or "" when it can.
std::string unreadable_because(const std::string& path) {
    if (path.empty()) return "the path is empty";
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return std::strerror(errno);
    if (!S_ISREG(info.st_mode)) return "not a regular file";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    return "";
}

}  // namespace

std::optional<std::string> uri_options::readable_file(const std::string& key) {
    auto v = take(key);
    if (!v) return std::nullopt;
    const std::string why = unreadable_because(*v);
    if (!why.empty()) bad_value(key, *v, "the path of a file this process can read (" + why + ")");
    return v;
}

void uri_options::finish() const {
    for (const auto& [key, value] : uri_.query) {
        if (known_.count(key)) continue;
        std::string accepted;
        for (const auto& k : known_) accepted += (accepted.empty() ? "" : ", ") + k;
        throw configuration_error("provider URI \"" + uri_.redacted() + "\": unknown option \"" + key +
                                  "\"; accepted options for " + uri_.scheme + ": " + accepted);
    }
}

}  // namespace shedlock
