#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>

#include <charconv>
#include <cstdint>

namespace shedlock {
namespace {

constexpr std::size_t digest_digits = 16;

/// FNV-1a: a stable 64-bit digest (std::hash may differ between the builds of the readers).
std::uint64_t digest(std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

}  // namespace

void validate_heartbeat_every(std::chrono::milliseconds every) {
    if (every < std::chrono::milliseconds{0} || every > max_heartbeat_every)
        throw configuration_error("status server heartbeat_every " + std::to_string(every.count()) +
                                  " ms is out of range; give 1 ms to 1 h (e.g. 10 s), or 0 for no heartbeat");
}

std::string heartbeat_record_name(std::chrono::milliseconds every, std::string_view process) {
    std::string out(heartbeat_prefix);
    out += std::to_string(every.count());
    out += ':';
    const auto value = digest(process);
    for (std::size_t i = 0; i < digest_digits; ++i) out += "0123456789abcdef"[(value >> (60 - 4 * i)) & 0xf];
    return out;
}

std::optional<std::chrono::milliseconds> heartbeat_interval(std::string_view lock_name) {
    if (lock_name.substr(0, heartbeat_prefix.size()) != heartbeat_prefix) return std::nullopt;
    const auto rest = lock_name.substr(heartbeat_prefix.size());
    std::int64_t ms = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ms);
    if (ec != std::errc{} || end == rest.data() || ms <= 0 || ms > max_heartbeat_every.count()) return std::nullopt;
    const auto digits = rest.substr(static_cast<std::size_t>(end - rest.data()));
    if (digits.size() != 1 + digest_digits || digits[0] != ':') return std::nullopt;
    for (const char c : digits.substr(1))
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
    return std::chrono::milliseconds{ms};
}

}  // namespace shedlock
