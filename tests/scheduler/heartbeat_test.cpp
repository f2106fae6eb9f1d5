// The heartbeat records of status servers: their names, and how a status server judges them
// (heartbeat_watch). The end-to-end case (a daemon stopped, resumed and killed while it holds a
// lock) is tests/observability/stopped_reporting_test.sh.
#include "heartbeat_watch.hpp"
#include "instance_heartbeat.hpp"

#include <shedlock/heartbeat_record.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/owner_token.hpp>

#include <catch2/catch.hpp>

#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::detail::heartbeat_watch;

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
    CHECK_NOTHROW(lock_configuration(name, heartbeat_lease));
    CHECK(heartbeat_interval(name) == 10s);
    CHECK(heartbeat_interval(heartbeat_record_name(1h, process_a)) == 1h);
    CHECK(heartbeat_record_name(10s, process_a) != heartbeat_record_name(10s, "web-1:4711:aaaaab"));
    CHECK_FALSE(heartbeat_interval("shedlock-heartbeat:web-1:4711"));  // a user's lock of that prefix
    CHECK_FALSE(heartbeat_interval("shedlock-heartbeat:10000:0123"));
    CHECK_FALSE(heartbeat_interval("shedlock-heartbeat:0:0123456789abcdef"));
    CHECK_FALSE(heartbeat_interval("shedlock-heartbeat:10000:0123456789abcdeX"));
    CHECK_FALSE(heartbeat_interval("report:2024-06-01"));
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
