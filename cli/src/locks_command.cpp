// shedlock locks: inspect lock records; shedlock locks release: operator release.
#include "locks_command.hpp"

#include "exit_codes.hpp"
#include "log.hpp"
#include "output.hpp"
#include "provider_factory.hpp"
#include "record_checks.hpp"
#include "usage_error.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/heartbeat_record.hpp>

#include <unistd.h>

#include <iostream>

namespace shedlock::cli {
namespace {

struct lock_view {
    lock_record record;
    bool held;
    std::chrono::milliseconds remaining;
    bool suspicious;      // lock_until abnormally far ahead, or held abnormally long
    std::string anomaly;  // times no correct writer produces, or an unreadable record
};

std::vector<lock_view> view(const std::vector<lock_record>& records, timestamp now, std::chrono::milliseconds stuck_after) {
    std::vector<lock_view> out;
    for (const auto& r : records) {
        const bool held = r.lock_until > now;
        const auto remaining = r.unreadable.empty() ? r.lock_until - now : std::chrono::milliseconds{0};
        // A heartbeat record is held years ahead, and for as long as its process lives, by design.
        const bool suspicious = held && r.unreadable.empty() && !read_heartbeat_record(r) &&
                                (remaining > stuck_after || now - r.locked_at > stuck_after);
        out.push_back({r, held, remaining, suspicious, time_anomaly(r, now)});
    }
    return out;
}

std::string state_of(const lock_view& l) {
    if (!l.record.unreadable.empty()) return "UNREADABLE";
    if (!l.anomaly.empty()) return std::string(l.held ? "held" : "free") + " (clock?)";
    if (read_heartbeat_record(l.record)) return "heartbeat";  // of a process serving its status
    return l.suspicious ? "HELD (stuck?)" : l.held ? "held" : "free";
}

/// A time for the table or JSON; "" for the placeholder times of an unreadable record.
std::string shown_time(const lock_view& l, timestamp t) { return l.record.unreadable.empty() ? iso_time(t) : ""; }

void print_json(const std::vector<lock_view>& locks) {
    std::cout << "[";
    for (std::size_t i = 0; i < locks.size(); ++i) {
        const auto& l = locks[i];
        std::cout << (i ? ",\n " : "\n ") << "{\"name\": " << json_string(l.record.name)
                  << ", \"held\": " << (l.held ? "true" : "false") << ", \"locked_by\": " << json_string(l.record.locked_by)
                  << ", \"locked_at\": " << json_string(shown_time(l, l.record.locked_at))
                  << ", \"lock_until\": " << json_string(shown_time(l, l.record.lock_until))
                  << ", \"remaining_ms\": " << (l.held ? l.remaining.count() : 0) << ", \"fencing_token\": "
                  << (l.record.fencing_token ? std::to_string(*l.record.fencing_token) : "null")
                  << ", \"suspicious\": " << (l.suspicious ? "true" : "false")
                  << ", \"problem\": " << (l.anomaly.empty() ? "null" : json_string(l.anomaly)) << "}";
    }
    std::cout << (locks.empty() ? "]\n" : "\n]\n");
}

void print_table(const std::vector<lock_view>& locks, const std::string& stuck_after) {
    std::vector<std::vector<std::string>> rows{{"NAME", "STATE", "HOLDER", "LOCKED_AT", "LOCK_UNTIL", "REMAINING", "TOKEN"}};
    int suspicious = 0;
    std::vector<std::string> problems;
    for (const auto& l : locks) {
        suspicious += l.suspicious;
        if (!l.anomaly.empty()) problems.push_back("lock \"" + l.record.name + "\": " + l.anomaly);
        rows.push_back({l.record.name, state_of(l), l.record.locked_by, shown_time(l, l.record.locked_at),
                        shown_time(l, l.record.lock_until), l.held && l.record.unreadable.empty() ? human_duration(l.remaining) : "-",
                        l.record.fencing_token ? std::to_string(*l.record.fencing_token) : "-"});
    }
    std::cout << format_table(rows);
    for (const auto& p : problems) std::cout << printable(p) << "\n";
    if (suspicious)
        std::cout << suspicious << " lock(s) held longer than, or until more than, " << stuck_after
                  << " from now: a stuck holder? Check the holder process; `shedlock locks release NAME --force` frees it.\n";
}

bool confirm(const std::string& question) {
    if (!::isatty(STDIN_FILENO)) return false;
    std::cerr << question << " [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes";
}

void require_provider(const locks_options& o) {
    if (o.provider.empty())
        throw missing_option("--provider is required (or set SHEDLOCK_PROVIDER), e.g. -p sqlite:/var/lib/locks.db");
}

}  // namespace

int locks_release_command(const locks_options& o) {
    require_provider(o);
    if (!o.force) {
        log(log_level::error, "releasing a lock another process holds can let a task run twice; add --force to do it");
        return exit_usage;
    }
    auto opened = open_provider(o.provider);
    if (!o.yes && !confirm("Release lock \"" + o.release_name + "\" on " + opened.display + "?")) {
        log(log_level::error, "not confirmed (answer y on a terminal, or pass --yes); nothing released");
        return exit_usage;
    }
    const bool released = inspect(*opened.provider).force_release(o.release_name);
    std::cout << (released ? "released \"" : "no live lock named \"") << printable(o.release_name) << "\"\n";
    return exit_ok;
}

int locks_command(const locks_options& o) {
    require_provider(o);
    const auto stuck_after = parse_duration(o.stuck_after, "--stuck-after");
    auto opened = open_provider(o.provider);
    const auto records = inspect(*opened.provider).list_locks();
    // Read after the listing, on the clock the backend decides by: a record freed before the
    // listing can never look held.
    const auto locks = view(records, inspect(*opened.provider).lock_time_now(), stuck_after);
    if (o.json) print_json(locks);
    else print_table(locks, o.stuck_after);
    return exit_ok;
}

}  // namespace shedlock::cli
