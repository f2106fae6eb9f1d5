// shedlock doctor: is this backend usable from this host, and is this host's clock close enough?
#include "doctor_command.hpp"

#include "exit_codes.hpp"
#include "output.hpp"
#include "provider_factory.hpp"
#include "record_checks.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/owner_token.hpp>

#include <iostream>
#include <utility>
#include <vector>

namespace shedlock::cli {
namespace {

/// Collects check results; prints them as lines, or as one JSON array at the end.
struct report {
    bool json = false;
    int failures = 0;
    bool misconfigured = false;  // a failure that no retry mends (a read-only primary's role): exit 78, not 69
    std::vector<std::pair<std::string, std::string>> checks;  // level, text

    void add(const char* level, const std::string& what) {
        if (json) checks.emplace_back(level, what);
        else std::cout << level << std::string(6 - std::string(level).size(), ' ') << one_line(what) << "\n";
    }
    void ok(const std::string& what) { add("ok", what); }
    void warn(const std::string& what) { add("warn", what); }
    void fail(const std::string& what) {
        ++failures;
        add("FAIL", what);
    }
    void fail(const std::string& what, const storage_error& e) {
        if (storage_failure_is_config(e.category())) misconfigured = true;
        fail(what + e.what());
    }
    int exit_status() const { return failures ? (misconfigured ? exit_config : exit_unavailable) : exit_ok; }
    ~report() {
        if (!json) return;
        std::cout << "[";
        for (std::size_t i = 0; i < checks.size(); ++i)
            std::cout << (i ? ",\n " : "\n ") << "{\"level\": " << json_string(checks[i].first)
                      << ", \"check\": " << json_string(checks[i].second) << "}";
        std::cout << (checks.empty() ? "]\n" : "\n]\n");
    }
};

void check_cycle(lock_provider& provider, report& r) {
    const std::string name = ("shedlock:doctor:" + instance_id()).substr(0, 64);
    try {
        auto held = provider.try_lock({name, std::chrono::seconds{30}});
        if (!held) return r.fail("lock \"" + name + "\" is held by someone else; run doctor again later");
        auto extended = held->extend(std::chrono::seconds{30});
        if (!extended) return r.fail("extend of a held lock failed: check UPDATE permission and the server clock");
        extended->unlock();
        r.ok("permissions: acquire, extend and release work (lock \"" + name + "\")");
        try {
            inspect(provider).delete_records({name});
        } catch (const unsupported_operation_error&) {
        }
    } catch (const storage_error& e) {
        r.fail("lock cycle failed: ", e);
    }
}

void check_clock(lock_provider& provider, std::chrono::milliseconds max_offset, report& r) {
    const auto before = system_clock::instance().now();
    const auto server = inspect(provider).server_time();
    const auto after = system_clock::instance().now();
    if (!server) return r.ok("clock: this backend has no server clock of its own (nothing to compare)");
    const auto local_mid = before + (after - before) / 2;
    const auto offset = std::chrono::duration_cast<std::chrono::milliseconds>(*server - local_mid);
    const std::string text = "clock offset server - this host = " + human_duration(offset) + " (round trip " +
                             human_duration(after - before) + ")";
    if (std::chrono::abs(offset) > max_offset)
        r.warn(text + " exceeds " + format_duration(max_offset) +
               ": instances with skewed clocks can overlap; add use_db_time=true to the URI (SQL) or fix NTP");
    else r.ok(text);
}

/// What stands between this host and the data, and what weakens the locks there (a pooler, the
/// server's replication); backends without anything to say print nothing.
void check_topology(lock_provider& provider, report& r) {
    try {
        for (const auto& note : inspect(provider).topology())
            note.weakens ? r.warn("topology: " + note.text) : r.ok("topology: " + note.text);
    } catch (const storage_error& e) {
        r.fail("topology: ", e);
    }
}

/// Stored records with times no correct writer produces (clock or time-zone trouble, or a row
/// that cannot be read).
void check_records(lock_provider& provider, report& r) {
    std::vector<lock_record> records;
    try {
        records = inspect(provider).list_locks();
    } catch (const unsupported_operation_error&) {
        return;
    }
    const timestamp now = inspect(provider).lock_time_now();
    int flagged = 0;
    for (const auto& record : records)
        if (const std::string anomaly = time_anomaly(record, now); !anomaly.empty()) {
            ++flagged;
            r.warn("lock \"" + printable(record.name) + "\": " + anomaly);
        }
    if (!flagged) r.ok("records: " + std::to_string(records.size()) + " lock record(s), times plausible");
}

}  // namespace

int doctor_command(const doctor_options& o) {
    const auto max_offset = parse_duration(o.max_offset, "--max-offset");
    report r;
    r.json = o.json;
    opened_provider opened;
    try {
        opened = open_provider(o.provider);
        // One round trip before "ok connect": the Redis providers (Sentinel and Cluster too)
        // open without touching the network, so an unreachable server used to pass this line
        // and fail only in the checks after it. Backends without a server clock (SQLite,
        // memory) answer without one: opening them touched their storage.
        (void)inspect(*opened.provider).server_time();
    } catch (const storage_error& e) {
        r.fail(std::string("connect: ") + e.what());
        return exit_for_storage(e.category());
    }
    r.ok("connect: " + opened.display);
    if (const std::string table = inspect(*opened.provider).record_table(); !table.empty())
        r.ok("table " + table + " present" +
             (opened.provider->supports_fencing() ? " with fencing_token"
                                                   : " WITHOUT fencing_token (a plain ShedLock table: fencing tokens unavailable)"));
    check_topology(*opened.provider, r);
    check_cycle(*opened.provider, r);
    try {
        check_clock(*opened.provider, max_offset, r);
        check_records(*opened.provider, r);
    } catch (const storage_error& e) {
        r.fail("clock: ", e);
    }
    return r.exit_status();
}

}  // namespace shedlock::cli
