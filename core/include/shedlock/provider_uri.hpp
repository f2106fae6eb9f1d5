#pragma once
/// \file
/// Provider URIs: `memory:`, `sqlite:path/to/locks.db`, `postgresql://user:pw@host:5432/db?table=x`,
/// `mysql://...`, `mariadb://...`, `redis://:pw@host:6379/0?prefix=shedlock`.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace shedlock {

/// A parsed provider URI. Percent-escapes are decoded in user, password, path and query values.
/// The password never appears in `redacted()` or in any error message.
struct provider_uri {
    std::string scheme;                  ///< lowercase: memory, sqlite, postgresql, mysql, mariadb, redis, ...
    std::string user;
    std::optional<std::string> password;
    std::string host;
    std::optional<std::uint16_t> port;
    std::string path;                    ///< database name (no leading '/'), or SQLite file path
    std::map<std::string, std::string> query;

    /// The URI with the password replaced by `***` (for messages and logs).
    std::string redacted() const;
};

/// True for query keys whose values are secrets (`password`, `pw`, ...): redacted() and option
/// errors show them as `***`. `password_file` and `password_env` (and `<name>_password_file`,
/// `<name>_password_env`) only say where a secret is,
/// so they are shown.
bool is_secret_uri_key(std::string_view key);

/// Parses `text`; throws configuration_error naming the (redacted) URI and the fix.
provider_uri parse_provider_uri(std::string_view text);

/// Reads a URI's query options and rejects any key nobody took (`finish()`), naming the key and
/// listing the accepted ones. Values that do not parse are errors naming the key and value.
class uri_options {
public:
    explicit uri_options(const provider_uri& uri) : uri_(uri) {}
    std::optional<std::string> text(const std::string& key);
    std::optional<bool> flag(const std::string& key);
    std::optional<std::chrono::milliseconds> duration(const std::string& key);
    std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max);
    /// A path to a regular file this process can open for reading, checked now (so a typo in
    /// a certificate path fails at start-up, naming the key and the path, not at the first
    /// connection). The file is not read.
    std::optional<std::string> readable_file(const std::string& key);
    /// Throws configuration_error if the URI has a query key that no call above asked for.
    void finish() const;

private:
    std::optional<std::string> take(const std::string& key);
    [[noreturn]] void bad_value(const std::string& key, const std::string& value, const std::string& expected) const;

    const provider_uri& uri_;
    std::set<std::string> known_;
};

}  // namespace shedlock
