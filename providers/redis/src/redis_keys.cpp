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

std::string redis_keys::fence_key(std::string_view name) const { return lock_key(name).append(fence_suffix); }

std::string redis_keys::scan_pattern() const { return glob_escape(base_) + "*"; }

std::optional<std::string> redis_keys::name_of(std::string_view key) const {
    if (key.substr(0, base_.size()) != base_) return std::nullopt;
    std::string_view rest = key.substr(base_.size());
    if (ends_with(rest, fence_suffix)) rest.remove_suffix(fence_suffix.size());
    if (tagged_) {
        if (rest.size() < 3 || rest.front() != '{' || rest.back() != '}') return std::nullopt;
        rest = rest.substr(1, rest.size() - 2);
    }
    if (rest.empty()) return std::nullopt;
    return std::string(rest);
}

}  // namespace shedlock::providers::detail
