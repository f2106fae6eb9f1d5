#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>
#include <shedlock/owner_token.hpp>

#include <charconv>
#include <cstdint>
#include <set>

namespace shedlock {
namespace {

constexpr std::size_t digest_digits = 16;

/// FNV-1a: a stable 64-bit digest (std::hash may differ between the builds of the readers).
std::uint64_t digest(std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

/// The interval in heartbeat record name `lock_name`; empty for any other name.
std::optional<std::chrono::milliseconds> interval_in_name(std::string_view lock_name) {
    if (lock_name.substr(0, heartbeat_prefix.size()) != heartbeat_prefix) return std::nullopt;
    const auto rest = lock_name.substr(heartbeat_prefix.size());
    std::int64_t ms = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ms);
    if (ec != std::errc{} || end == rest.data() || ms <= 0 || ms > max_heartbeat_every.count()) return std::nullopt;
    return std::chrono::milliseconds{ms};
}

/// Live locks by the processes holding them; heartbeat records do not count (they are held for
/// the whole lease, dead or alive).
std::set<std::string> processes_holding_locks(const std::vector<lock_record>& records, timestamp now) {
    std::set<std::string> out;
    for (const auto& r : records)
        if (r.lock_until > now && !read_heartbeat_record(r)) out.insert(process_of_owner(r.locked_by));
    return out;
}

}  // namespace

void validate_heartbeat_every(std::chrono::milliseconds every) {
    const bool off = every == std::chrono::milliseconds{0};
    if (!off && (every < min_heartbeat_every || every > max_heartbeat_every))
        throw configuration_error("status server heartbeat_every " + std::to_string(every.count()) +
                                  " ms is out of range (each beat is a backend write); give " +
                                  std::to_string(min_heartbeat_every.count()) +
                                  " ms to 1 h (e.g. 10 s), or 0 for no heartbeat");
}

std::string heartbeat_record_name(std::chrono::milliseconds every, std::string_view process) {
    std::string out(heartbeat_prefix);
    out += std::to_string(every.count());
    out += ':';
    const auto value = digest(process);
    for (std::size_t i = 0; i < digest_digits; ++i) out += "0123456789abcdef"[(value >> (60 - 4 * i)) & 0xf];
    return out;
}

lock_configuration heartbeat_lock_configuration(std::chrono::milliseconds every) {
    validate_heartbeat_every(every);
    if (every == std::chrono::milliseconds{0})
        throw configuration_error("status server heartbeat_every 0 ms means no heartbeat; start none");
    return {lock_configuration::reserved_name{}, heartbeat_record_name(every, this_process()), heartbeat_lease};
}

std::optional<heartbeat_beat> read_heartbeat_record(const lock_record& record) {
    if (!record.unreadable.empty()) return std::nullopt;
    const auto every = interval_in_name(record.name);
    if (!every) return std::nullopt;
    auto process = process_of_owner(record.locked_by);
    // The digest binds the name to its holder: a row named so by anyone else is a plain lock.
    if (process.empty() || heartbeat_record_name(*every, process) != record.name) return std::nullopt;
    return heartbeat_beat{std::move(process), *every, record.lock_until - heartbeat_lease};
}

std::vector<std::string> heartbeat_records_to_delete(const std::vector<lock_record>& records, timestamp now) {
    const auto holding = processes_holding_locks(records, now);
    std::vector<std::string> out;
    for (const auto& r : records) {
        const auto beat = read_heartbeat_record(r);
        if (beat && now - beat->last_beat > heartbeat_retention && !holding.count(beat->process)) out.push_back(r.name);
    }
    return out;
}

}  // namespace shedlock
