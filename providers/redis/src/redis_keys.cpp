#include "redis_keys.hpp"

namespace shedlock::providers::detail {
namespace {

constexpr std::string_view fence_suffix = ":fence";

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// SCAN MATCH is a glob: a literal prefix must have its glob characters escaped.
std::string glob_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

}  // namespace

std::string effective_prefix(const redis_options& options) {
    if (!options.prefix.empty()) return options.prefix;
    return options.java_compat ? "job-lock" : "shedlock";
}

std::string effective_env(const redis_options& options) {
    if (!options.env.empty()) return options.env;
    return options.java_compat ? "default" : "";
}

redis_keys::redis_keys(const redis_options& options) : tagged_(!options.java_compat) {
    const std::string env = effective_env(options);
    base_ = effective_prefix(options) + ":" + (env.empty() ? "" : env + ":");
}

std::string redis_keys::lock_key(std::string_view name) const {
    std::string key = base_;
    if (tagged_) key.append("{").append(name).append("}");
    else key.append(name);
    return key;
}

// Tagged: `<base>{name}:fence` ends in ":fence", a lock key `<base>{name}` in "}": never equal.
// Java mode: a lock key is `<base><name>` with any name, so no suffix can set a fence key apart
// (lock "x:fence" would be the fence of lock "x"). `{<lock key>}:fence` starts with '{', which no
// lock key does (the prefix is non-empty and has no braces); its hash tag is the lock key, so
// Redis Cluster puts it in the lock key's slot.
std::string redis_keys::fence_key(std::string_view name) const {
    if (tagged_) return lock_key(name).append(fence_suffix);
    return "{" + lock_key(name) + "}" + std::string(fence_suffix);
}

std::vector<std::string> redis_keys::scan_patterns() const {
    if (tagged_) return {glob_escape(base_) + "*"};
    return {glob_escape(base_) + "*", glob_escape("{" + base_) + "*" + glob_escape("}" + std::string(fence_suffix))};
}

std::optional<std::string> redis_keys::name_of(std::string_view key) const {
    std::string_view rest;
    if (!tagged_ && key.substr(0, 1 + base_.size()) == "{" + base_ && ends_with(key, "}" + std::string(fence_suffix))) {
        rest = key.substr(1 + base_.size(), key.size() - 1 - base_.size() - 1 - fence_suffix.size());
    } else {
        if (key.substr(0, base_.size()) != base_) return std::nullopt;
        rest = key.substr(base_.size());
    }
    if (tagged_) {
        if (ends_with(rest, fence_suffix)) rest.remove_suffix(fence_suffix.size());
        if (rest.size() < 3 || rest.front() != '{' || rest.back() != '}') return std::nullopt;
        rest = rest.substr(1, rest.size() - 2);
    }
    if (rest.empty()) return std::nullopt;
    return std::string(rest);
}

}  // namespace shedlock::providers::detail
