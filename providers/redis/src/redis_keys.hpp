#pragma once
// Key naming: `<prefix>[:<env>]:{<name>}` and `...:fence`, or Java ShedLock's `<prefix>:<env>:<name>`
// with the fence key `{<prefix>:<env>:<name>}:fence`.

#include <shedlock/providers/redis_lock_provider.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

class redis_keys {
public:
    /// Options must already be validated (redis_options checks prefix and env).
    explicit redis_keys(const redis_options& options);

    std::string lock_key(std::string_view name) const;
    std::string fence_key(std::string_view name) const;
    /// SCAN MATCH patterns that together cover every lock and fence key of this prefix/env.
    std::vector<std::string> scan_patterns() const;
    /// The lock name a lock or fence key belongs to; empty for a key that is not ours.
    std::optional<std::string> name_of(std::string_view key) const;

private:
    std::string base_;  // "<prefix>:" or "<prefix>:<env>:"
    bool tagged_;       // braces around the name: lock and fence key in one Cluster slot
};

/// Throws configuration_error naming the field and the fix for any option that cannot work
/// (empty host, braces or control characters in prefix/env, zero timeouts, pool size, db).
void validate_redis_options(const redis_options& options);

/// How long WAIT waits after an acquisition: wait_timeout, or half of command_timeout when 0.
std::chrono::milliseconds effective_wait_timeout(const redis_options& options);

/// The prefix and env actually used (defaults filled in for the mode).
std::string effective_prefix(const redis_options& options);
std::string effective_env(const redis_options& options);

}  // namespace shedlock::providers::detail
