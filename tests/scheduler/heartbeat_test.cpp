// The heartbeat records of status servers: their names, and how a status server judges them
// (heartbeat_watch). The end-to-end case (a daemon stopped, resumed and killed while it holds a
// lock) is tests/observability/stopped_reporting_test.sh.
#include "heartbeat_watch.hpp"
#include "instance_heartbeat.hpp"
#include "wait_for.hpp"

#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::detail::heartbeat_watch;
using shedlock::test::wait_for;

namespace {

lock_record heartbeat_of(const std::string& process, std::chrono::milliseconds every, timestamp last_beat) {
    lock_record r;
    r.name = heartbeat_record_name(every, process);
    r.locked_by = process + "abcdefghijkl";  // process_of_owner: host:pid:nonce + 12 random characters
    r.locked_at = last_beat;
    r.lock_until = last_beat + heartbeat_lease;
    return r;
}

const std::string process_a = "web-1:4711:aaaaaa";

}  // namespace

TEST_CASE("heartbeat record names fit a lock name whatever the host, and name their interval", "[heartbeat]") {
    const auto long_host = std::string(180, 'h') + ":4194304:abcdef";  // the longest owner token's process
    const auto name = heartbeat_record_name(10s, long_host);
    CHECK(name.size() <= 64);
    CHECK_NOTHROW(validate_lock_name(name));
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    CHECK(read_heartbeat_record(heartbeat_of(long_host, 10s, now))->every == 10s);
    const auto hourly = read_heartbeat_record(heartbeat_of(process_a, 1h, now - 5s));
    REQUIRE(hourly);
    CHECK(hourly->every == 1h);
    CHECK(hourly->process == process_a);
    CHECK(hourly->last_beat == now - 5s);
    CHECK(heartbeat_record_name(10s, process_a) != heartbeat_record_name(10s, "web-1:4711:aaaaab"));
    const auto named = [&](std::string record_name) {
        auto r = heartbeat_of(process_a, 10s, now);
        r.name = std::move(record_name);
        return read_heartbeat_record(r);
    };
    CHECK(named(heartbeat_record_name(10s, process_a)));
    CHECK_FALSE(named("shedlock-heartbeat:web-1:4711"));
    CHECK_FALSE(named("shedlock-heartbeat:10000:0123"));
    CHECK_FALSE(named("shedlock-heartbeat:0:0123456789abcdef"));
    CHECK_FALSE(named("shedlock-heartbeat:010000" + heartbeat_record_name(10s, process_a).substr(24)));  // not as written
    CHECK_FALSE(named("report:2024-06-01"));
}

TEST_CASE("a heartbeat record is this process's own, held for the longest lease", "[heartbeat]") {
    const auto config = heartbeat_lock_configuration(250ms);
    CHECK(config.name() == heartbeat_record_name(250ms, this_process()));
    CHECK(config.lock_at_most_for() == max_lock_at_most_for);
    CHECK(config.lock_at_least_for() == 0ms);
    CHECK_THROWS_WITH(heartbeat_lock_configuration(0ms), Catch::Contains("means no heartbeat"));
    CHECK_THROWS_WITH(heartbeat_lock_configuration(2h), Catch::Contains("out of range"));
    CHECK_THROWS_WITH(heartbeat_lock_configuration(99ms), Catch::Contains("99 ms is out of range") &&
                                                            Catch::Contains("give 100 ms to 1 h"));
    CHECK(heartbeat_lock_configuration(min_heartbeat_every).name() ==
          heartbeat_record_name(min_heartbeat_every, this_process()));
}

TEST_CASE("lock names starting with the heartbeat records' prefix are reserved", "[heartbeat]") {
    using Catch::Contains;
    const std::string lookalike = "shedlock-heartbeat:1000:0123456789abcdef";
    CHECK_THROWS_AS(lock_configuration(lookalike, 1min), configuration_error);
    CHECK_THROWS_WITH(lock_configuration(lookalike, 1min),
                      Contains("\"" + lookalike + "\"") && Contains("reserved") && Contains("heartbeat:1000:0123456789abcdef"));
    // A case-folding MySQL/MariaDB name column (Java ShedLock's table) would share the heartbeat's row.
    CHECK_THROWS_AS(lock_configuration("SHEDLOCK-Heartbeat:anything", 1min), configuration_error);
    CHECK_THROWS_AS(lock_configuration("report", 1min).with_name(lookalike), configuration_error);  // a rendered template
    CHECK_NOTHROW(lock_configuration("shedlock-heartbeats", 1min));
    CHECK_NOTHROW(lock_configuration("my-shedlock-heartbeat:1", 1min));
}

TEST_CASE("heartbeat watch: a record named like a heartbeat record but not derived from its holder is not one",
          "[heartbeat]") {
    heartbeat_watch watch;
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    lock_record lookalike;  // a user's lock PT1H (written before the prefix was reserved, or by another writer)
    lookalike.name = "shedlock-heartbeat:1000:0123456789abcdef";
    lookalike.locked_by = process_a + "abcdefghijkl";
    lookalike.locked_at = now - 1min;
    lookalike.lock_until = now + 59min;
    CHECK(watch.observe({lookalike}, now).empty());
    // The same name held by the process it was derived from would be one.
    auto renamed = heartbeat_of(process_a, 1s, now);
    CHECK(watch.observe({renamed}, now).count(process_a) == 1);
}

TEST_CASE("heartbeat watch: a record that stops changing for three intervals is a stopped process", "[heartbeat]") {
    heartbeat_watch watch;
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    auto record = heartbeat_of(process_a, 20ms, now);
    CHECK_FALSE(watch.observe({record}, now).at(process_a).stopped);
    std::this_thread::sleep_for(30ms);
    CHECK_FALSE(watch.observe({record}, now).at(process_a).stopped);  // 30 ms unchanged: under 3 x 20
    std::this_thread::sleep_for(50ms);
    const auto silent = watch.observe({record}, now).at(process_a);  // 80 ms unchanged
    CHECK(silent.stopped);
    CHECK(silent.silent >= 60ms);
    record.lock_until += 80ms;  // it beats again
    CHECK_FALSE(watch.observe({record}, now).at(process_a).stopped);
}

TEST_CASE("heartbeat watch: a record first seen long after its last beat is stopped at once", "[heartbeat]") {
    heartbeat_watch watch;
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    const auto fresh = heartbeat_of(process_a, 10s, now - 20s);
    const auto skewed = heartbeat_of("web-2:1:bbbbbb", 10s, now - 30s - heartbeat_watch::skew_allowance + 1s);
    const auto dead = heartbeat_of("web-3:1:cccccc", 10s, now - 2h);
    const auto seen = watch.observe({fresh, skewed, dead}, now);
    CHECK_FALSE(seen.at(process_a).stopped);
    CHECK_FALSE(seen.at("web-2:1:bbbbbb").stopped);  // within the allowance for clock skew
    CHECK(seen.at("web-3:1:cccccc").stopped);
    CHECK(seen.at("web-3:1:cccccc").silent >= 2h - heartbeat_watch::skew_allowance);
}

TEST_CASE("heartbeat watch: a writer whose clock is off is not flagged while it keeps beating", "[heartbeat]") {
    heartbeat_watch watch;
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    auto record = heartbeat_of(process_a, 20ms, now - 5min);  // its clock is 5 minutes behind
    CHECK(watch.observe({record}, now).at(process_a).stopped);  // first sighting: its own time says so
    for (int beat = 0; beat < 5; ++beat) {
        std::this_thread::sleep_for(20ms);
        record.lock_until += 20ms;  // it beats: from now on only this server's steady clock counts
        CHECK_FALSE(watch.observe({record}, now + (beat + 1) * 20ms).at(process_a).stopped);
    }
}

TEST_CASE("heartbeat watch: lock_until jitter of a listing is not a beat", "[heartbeat]") {
    heartbeat_watch watch;
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    auto record = heartbeat_of(process_a, 20ms, now);
    CHECK_FALSE(watch.observe({record}, now).at(process_a).stopped);
    for (int i = 0; i < 8; ++i) {  // Redis before 7: TIME + PTTL, read apart, moves by a few ms
        std::this_thread::sleep_for(10ms);
        record.lock_until += (i % 2 ? -3ms : 3ms);
        (void)watch.observe({record}, now);
    }
    CHECK(watch.observe({record}, now).at(process_a).stopped);  // 80 ms without a beat
}

TEST_CASE("heartbeat watch: records of other writers and unreadable records are not judged", "[heartbeat]") {
    heartbeat_watch watch;
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    auto java = heartbeat_of(process_a, 10s, now - 2h);
    java.locked_by = "web-1";  // Java ShedLock writes the host name alone
    auto unreadable = heartbeat_of("web-3:1:cccccc", 10s, now - 2h);
    unreadable.unreadable = "lock_until is not a time";
    lock_record task;
    task.name = "report";
    task.locked_by = process_a + "abcdefghijkl";
    CHECK(watch.observe({java, unreadable, task}, now).empty());
}

namespace {

lock_record lock_of(const std::string& process, const std::string& name, timestamp locked_at, timestamp lock_until) {
    lock_record r;
    r.name = name;
    r.locked_by = process + "mnopqrstuvwx";
    r.locked_at = locked_at;
    r.lock_until = lock_until;
    return r;
}

}  // namespace

TEST_CASE("heartbeat housekeeping: a dead holder's record stays while its lock is held", "[heartbeat]") {
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    const auto dead = heartbeat_of(process_a, 10s, now - 48h);  // silent two days: its process died
    const auto report = lock_of(process_a, "report", now - 48h, now + 24h);  // P3D, a day left
    CHECK(heartbeat_records_to_delete({dead, report}, now).empty());
    heartbeat_watch watch;
    const auto judged = watch.observe({dead, report}, now).at(process_a);
    CHECK(judged.stopped);  // so the status page keeps flagging "report"
    CHECK(judged.silent >= 48h - heartbeat_watch::skew_allowance);
    // Once the lock is no longer held the record goes; so does one with only a released lock.
    CHECK(heartbeat_records_to_delete({dead, lock_of(process_a, "report", now - 48h, now)}, now) ==
          std::vector<std::string>{dead.name});
    CHECK(heartbeat_records_to_delete({dead}, now) == std::vector<std::string>{dead.name});
    // Another process's lock, or its own other heartbeat record, keeps nothing.
    const auto other_beat = heartbeat_of("web-2:1:bbbbbb", 10s, now);
    CHECK(heartbeat_records_to_delete({dead, lock_of("web-2:1:bbbbbb", "report", now, now + 1h), other_beat}, now) ==
          std::vector<std::string>{dead.name});
    CHECK(heartbeat_records_to_delete({dead, heartbeat_of(process_a, 20s, now - 48h)}, now).size() == 2);
    // A record silent for less than the retention stays (its process may only be frozen).
    CHECK(heartbeat_records_to_delete({heartbeat_of(process_a, 10s, now - heartbeat_retention + 1s)}, now).empty());
}

TEST_CASE("heartbeat housekeeping: a record named like a heartbeat record but held by another process stays",
          "[heartbeat]") {
    const auto now = timestamp{} + std::chrono::hours{24 * 365 * 50};
    auto lookalike = lock_of(process_a, "shedlock-heartbeat:1000:0123456789abcdef", now - 72h, now - 48h);
    lookalike.fencing_token = 3;
    CHECK(heartbeat_records_to_delete({lookalike}, now).empty());
    // And it is a lock like any other: it keeps its holder's heartbeat record.
    const auto dead = heartbeat_of(process_a, 10s, now - 48h);
    lookalike.lock_until = now + 1h;
    CHECK(heartbeat_records_to_delete({dead, lookalike}, now).empty());
}

TEST_CASE("heartbeat housekeeping at start-up, on a provider with an injected clock", "[heartbeat]") {
    manual_clock lock_time;
    providers::memory_lock_provider provider(lock_time);
    const auto listed = [&](const std::string& name) {
        for (const auto& r : inspect(provider).list_locks())
            if (r.name == name) return true;
        return false;
    };
    // A process that beat every 100 ms, took a lock for three days, and died (its record stayed).
    const auto dead_config = heartbeat_lock_configuration(100ms);
    auto dead_record = provider.try_lock(dead_config);
    REQUIRE(dead_record);
    auto report = provider.try_lock(lock_configuration("report", "P3D"));
    REQUIRE(report);
    lock_time.advance(48h);  // past the retention, well within the lock
    const auto started = [&](std::chrono::milliseconds every) {  // a status server starting: it prunes, then beats
        const auto own = heartbeat_record_name(every, this_process());
        auto beating = std::make_unique<detail::instance_heartbeat>(provider, every, nullptr);
        REQUIRE(wait_for([&] { return listed(own); }, 10s));  // its start-up housekeeping is done
        return beating;
    };
    (void)started(140ms);
    CHECK(listed(dead_config.name()));  // kept: the evidence that "report" is stale
    report->unlock();
    (void)started(180ms);
    CHECK_FALSE(listed(dead_config.name()));  // the lock is free: nothing left to flag
    dead_record.reset();
}
