#include <shedlock/error.hpp>
#include <shedlock/uri_password.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace shedlock {
namespace {

[[noreturn]] void refuse(const provider_uri& uri, const std::string& why) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": " + why);
}

/// Closes the descriptor on every path out of read_first_line.
struct descriptor {
    int fd;
    ~descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

/// The file's first line; a password longer than this is surely not one line of a secret file.
constexpr std::size_t max_password_file = 64 * 1024;

/// `key`: "password" (password_file) or another secret's name (sentinel_password_file).
std::string read_first_line(const provider_uri& uri, const std::string& key, const std::string& path) {
    const std::string shown = key + "_file \"" + path + "\"";
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever; it is refused
    // below as not a regular file (on a regular file the flag changes nothing).
    const descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    struct stat info {};
    if (file.fd < 0 || ::fstat(file.fd, &info) != 0)
        refuse(uri, shown + " cannot be read (" + std::strerror(errno) + "); give a file this process can read");
    if (!S_ISREG(info.st_mode)) refuse(uri, shown + " is not a regular file; give the file that holds the password");
    // Refused rather than warned about: a warning from a library is easily lost, a secret file
    // that every local user may read is not.
    if (info.st_mode & S_IROTH)
        refuse(uri, shown + " is readable by every user; restrict it (chmod 600 " + path + ", or 640 for a group)");
    std::string text(std::min<std::size_t>(static_cast<std::size_t>(info.st_size), max_password_file), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(file.fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) refuse(uri, shown + " cannot be read (" + std::strerror(errno) + ")");
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    const auto line_end = text.find('\n');
    // A first line cut at the bound is not the password: refused, never sent truncated.
    if (line_end == std::string::npos && got == max_password_file)
        refuse(uri, shown + " has a first line longer than " + std::to_string(max_password_file) +
                        " bytes; write only the password on its first line");
    text = text.substr(0, line_end);
    if (!text.empty() && text.back() == '\r') text.pop_back();  // a file written on Windows
    if (text.empty()) refuse(uri, shown + " has an empty first line; write the password on its first line");
    return text;
}

bool is_variable_name(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    for (unsigned char c : name)
        if (!std::isalnum(c) && c != '_') return false;
    return true;
}

std::string read_variable(const provider_uri& uri, const std::string& key, const std::string& name) {
    const std::string option = key + "_env";
    if (!is_variable_name(name))
        refuse(uri, option + " \"" + name + "\" is not a variable name; use letters, digits and '_', e.g. DB_PASSWORD");
    const char* value = std::getenv(name.c_str());
    if (!value) refuse(uri, option + " names " + name + ", which is not set; export " + name + " before starting");
    if (!*value) refuse(uri, option + " names " + name + ", which is empty; set it to the password");
    return value;
}

/// The secret `key` from `inline_value` (the URI), `<key>_file` or `<key>_env`: one of them.
std::optional<std::string> read_secret(const provider_uri& uri, uri_options& query, const std::string& key,
                                       const std::optional<std::string>& inline_value, const std::string& inline_name) {
    const auto file = query.text(key + "_file");
    const auto env = query.text(key + "_env");
    const int sources = (inline_value ? 1 : 0) + (file ? 1 : 0) + (env ? 1 : 0);
    if (sources > 1)
        refuse(uri, "the " + key + " is given " + std::string(inline_value ? inline_name + " and " : "") +
                        (file ? "by " + key + "_file" : "") + (file && env ? " and " : "") + (env ? "by " + key + "_env" : "") +
                        "; give it one way only");
    if (file) return read_first_line(uri, key, *file);
    if (env) return read_variable(uri, key, *env);
    return inline_value;
}

}  // namespace

std::optional<std::string> read_uri_password(const provider_uri& uri, uri_options& query) {
    return read_secret(uri, query, "password", uri.password, "in the URI");
}

std::optional<std::string> read_uri_secret(const provider_uri& uri, uri_options& query, const std::string& key) {
    const auto value = query.text(key);
    return read_secret(uri, query, key, value, "by " + key);
}

std::vector<std::string> secret_environment_variables(const provider_uri& uri) {
    std::vector<std::string> names;
    for (const auto& [key, value] : uri.query) {
        const bool names_secret = key == "password_env" ||
                                  (key.size() > 13 && key.compare(key.size() - 13, 13, "_password_env") == 0);
        if (names_secret) names.push_back(value);
    }
    return names;
}

}  // namespace shedlock
