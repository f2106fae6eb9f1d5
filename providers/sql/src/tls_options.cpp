#include <shedlock/error.hpp>
#include <shedlock/providers/sql/tls_options.hpp>

#include <cctype>

namespace shedlock::providers::sql {
namespace {

[[noreturn]] void refuse(const provider_uri& uri, const std::string& why) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": " + why);
}

bool same_ignoring_case(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

std::string canonical_mode(const provider_uri& uri, const std::string& value, const tls_keys& keys) {
    std::string listed;
    for (const auto& mode : keys.modes) {
        if (same_ignoring_case(value, mode)) return mode;
        listed += (listed.empty() ? "" : ", ") + mode;
    }
    refuse(uri, std::string(keys.mode) + "=" + value + " is not a TLS mode; use one of " + listed);
}

/// The key of the first file given, or nullptr.
const char* first_file_key(const tls_options& t, const tls_keys& keys) {
    if (!t.ca_file.empty()) return keys.ca;
    if (!t.cert_file.empty()) return keys.cert;
    if (!t.key_file.empty()) return keys.key;
    return nullptr;
}

void check_combination(const provider_uri& uri, const tls_options& t, const tls_keys& keys) {
    if (t.cert_file.empty() != t.key_file.empty()) {
        const char* given = t.cert_file.empty() ? keys.key : keys.cert;
        const char* missing = t.cert_file.empty() ? keys.cert : keys.key;
        refuse(uri, std::string(given) + " is given without " + missing +
                        "; give both, the client certificate and its private key");
    }
    const char* file = first_file_key(t, keys);
    if (!file) return;
    const std::string strict = keys.modes.back();  // the modes are listed weakest first
    if (t.mode.empty())
        refuse(uri, std::string(file) + " is given without " + keys.mode + "; add " + keys.mode + "=" + strict +
                        " (or another mode) so that it is clear how the file is used");
    if (t.mode == keys.modes.front())
        refuse(uri, std::string(file) + " is given with " + keys.mode + "=" + t.mode + ", which turns TLS off; use " +
                        keys.mode + "=" + strict + " or remove the file options");
}

}  // namespace

tls_options read_tls_uri(const provider_uri& uri, uri_options& query, const tls_keys& keys) {
    tls_options t;
    if (auto v = query.text(keys.mode)) t.mode = canonical_mode(uri, *v, keys);
    if (auto v = query.readable_file(keys.ca)) t.ca_file = *v;
    if (auto v = query.readable_file(keys.cert)) t.cert_file = *v;
    if (auto v = query.readable_file(keys.key)) t.key_file = *v;
    check_combination(uri, t, keys);
    return t;
}

}  // namespace shedlock::providers::sql
