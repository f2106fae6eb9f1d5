// The analysis on hand-made runs: each check must flag what it is for and stay quiet on a
// clean history, so a green chaos run means something.
#include "analysis.hpp"

#include <catch2/catch.hpp>

namespace {

using namespace shedlock::chaos;

constexpr std::int64_t s = 1'000'000;  // one second in the journal's microseconds
constexpr std::int64_t ms = 1'000;

/// A run on one client-time lane with a 2 s lease; events are added per test.
struct fake_run {
    run_options options;
    std::vector<lane> lanes{{"client_time", "L", "sqlite:x", false, false, 0, 3000}};
    std::vector<attempt_record> attempts;
    std::vector<journal_event> journal;
    std::vector<fault_event> faults;

    fake_run() {
        options.at_most = std::chrono::milliseconds{2000};
        options.slack_ms = 3000;
    }
    /// An attempt that held the lock from `begin` to `commit` and exited `status`.
    attempt_record& holder(std::int64_t id, std::int64_t spawn, std::int64_t begin, std::int64_t commit, std::int64_t token,
                           bool accepted = true, int status = 0) {
        journal.push_back({begin, "begin", "L", id, token, true});
        journal.push_back({commit, "commit", "L", id, token, accepted});
        return attempt(id, spawn, commit + 20 * ms, status);
    }
    attempt_record& attempt(std::int64_t id, std::int64_t spawn, std::int64_t exit, int status) {
        attempt_record r;
        r.plan.id = id;
        r.spawn_us = spawn;
        r.exit_us = exit;
        r.status = status;
        attempts.push_back(r);
        return attempts.back();
    }
    lane_result analyze_lane() const {
        return analyze({options, lanes, attempts, journal, faults, 0, journal.empty() ? 0 : journal.back().t_us})
            .front();
    }
};

int count(const lane_result& r, const std::string& kind) {
    const auto it = r.violations.find(kind);
    return it == r.violations.end() ? 0 : it->second;
}

}  // namespace

TEST_CASE("a clean history has no violations", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 200 * ms, 1);
    run.attempt(2, 150 * ms, 250 * ms, 75);
    run.holder(3, 300 * ms, 400 * ms, 500 * ms, 2);
    const auto r = run.analyze_lane();
    CHECK(r.total_violations() == 0);
    CHECK(r.acquired == 2);
    CHECK(r.skipped == 1);
}

TEST_CASE("a grant inside another holder's live lease is an exclusion violation", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 900 * ms, 1);
    run.holder(2, 200 * ms, 300 * ms, 950 * ms, 2);
    CHECK(count(run.analyze_lane(), "exclusion") == 1);
}

TEST_CASE("a higher token that begins inside an earlier holder's section is an exclusion violation", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 400 * ms, 1);
    run.holder(2, 50 * ms, 300 * ms, 500 * ms, 2);  // started before 1 began: only the token orders them
    CHECK(count(run.analyze_lane(), "exclusion") == 1);
    run.journal.clear();
    run.attempts.clear();
    run.holder(1, 0, 100 * ms, 400 * ms, 2);  // the other way round: 2 came first and began late
    run.holder(2, 50 * ms, 300 * ms, 500 * ms, 1);
    CHECK(count(run.analyze_lane(), "exclusion") == 1);
}

TEST_CASE("a skewed clock excuses the break on a client-clock lane only", "[chaos]") {
    fake_run run;
    run.lanes.front().client_clock = true;
    run.holder(1, 0, 100 * ms, 900 * ms, 1);
    run.holder(2, 200 * ms, 300 * ms, 950 * ms, 2).plan.clock = {3000, false};
    auto r = run.analyze_lane();
    CHECK(count(r, "exclusion") == 0);
    CHECK(r.excused == 1);
    run.lanes.front().client_clock = false;
    CHECK(count(run.analyze_lane(), "exclusion") == 1);
}

TEST_CASE("a repeated token is a duplicate, a regression and lets two overlapping writes through", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 500 * ms, 7);
    run.holder(2, 150 * ms, 300 * ms, 600 * ms, 7);
    const auto r = run.analyze_lane();
    CHECK(count(r, "duplicate_token") == 1);
    CHECK(count(r, "token_regression") == 1);
    CHECK(count(r, "accepted_overlap") == 1);
    CHECK(count(r, "token_order") == 1);
}

TEST_CASE("a stretch without a holder beyond the slack is a gap, unless an outage explains it", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 200 * ms, 1);
    run.holder(2, 5 * s, 5 * s + 100 * ms, 5 * s + 200 * ms, 2);
    CHECK(count(run.analyze_lane(), "gap") == 1);
    run.faults.push_back({"restart", 1 * s, 3 * s, 0, -1});
    CHECK(count(run.analyze_lane(), "gap") == 0);
}

TEST_CASE("exit 75 needs a holder, exit 69 a fault, exit 137 a kill", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 200 * ms, 1);
    run.attempt(2, 4 * s, 4 * s + 100 * ms, 75);  // the 69 below may have been granted until 3.1 s
    run.attempt(3, 1 * s, 1 * s + 100 * ms, 69);
    run.holder(4, 1200 * ms, 1300 * ms, 1400 * ms, 2, true, 137);
    CHECK(count(run.analyze_lane(), "status") == 3);
    run.attempts.back().faults.killed_command = true;
    run.faults.push_back({"black_hole", 900 * ms, 1100 * ms, 0, -1});
    CHECK(count(run.analyze_lane(), "status") == 1);  // the 75 alone
}

TEST_CASE("a server-clock release delayed in transit holds the minimum longer, a client-clock one does not", "[chaos]") {
    // The holder's release left after its commit (200 ms) and was answered at its exit (500 ms):
    // the server added the remaining minimum hold to its now on arrival, up to 300 ms late, so
    // the lock may be held until 100 + 1000 + 300 ms. (Seen in chaos_redis under a latency fault.)
    fake_run run;
    run.holder(1, 0, 100 * ms, 200 * ms, 1).plan.at_least_ms = 1000;
    run.attempts.back().exit_us = 500 * ms;
    run.attempt(2, 1250 * ms, 1300 * ms, 75);
    CHECK(count(run.analyze_lane(), "status") == 0);
    run.attempt(3, 1450 * ms, 1500 * ms, 75);  // past even the delayed release
    CHECK(count(run.analyze_lane(), "status") == 1);
    run.lanes.front().client_clock = true;  // the client wrote the absolute end: no transit slack
    CHECK(count(run.analyze_lane(), "status") == 2);
}

TEST_CASE("an extension that succeeds after a newer holder began is stale", "[chaos]") {
    fake_run run;
    run.holder(1, 0, 100 * ms, 3 * s, 1, false, 3).plan.keep_alive = true;
    run.holder(2, 2200 * ms, 2300 * ms, 2400 * ms, 2);
    run.journal.push_back({2500 * ms, "extend_start", "L", 1, 1, true});
    run.journal.push_back({2510 * ms, "extend_ok", "L", 1, 1, true});
    CHECK(count(run.analyze_lane(), "stale_extend") == 1);
}

TEST_CASE("a command that writes long after its shedlock run was killed outlived it", "[chaos]") {
    fake_run run;
    auto& killed = run.holder(1, 0, 100 * ms, 900 * ms, 1, true, 137);
    killed.cli_signalled = true;
    killed.faults.killed_cli = true;
    killed.faults.kill_us = 150 * ms;
    CHECK(count(run.analyze_lane(), "status") == 1);
    run.attempts.back().faults.kill_us = 800 * ms;  // it was already committing
    CHECK(count(run.analyze_lane(), "status") == 0);
}

TEST_CASE("a 75 after a release that a failover undid is no status violation where a failover can undo one",
          "[chaos]") {
    fake_run run;
    // 1 holds 100-200 ms and releases; the primary dies at 300 ms, before its replica had the
    // release; the promoted replica holds the key until 1's lease ends (2.1 s): 2 is refused.
    run.holder(1, 0, 100 * ms, 200 * ms, 1);
    run.faults.push_back({"restart", 300 * ms, 800 * ms, 0, -1});
    run.attempt(2, 1000 * ms, 1010 * ms, 75);
    CHECK(count(run.analyze_lane(), "status") == 1);  // a lane where a restart cannot undo it
    run.lanes.front().failover_undoes_release = true;
    CHECK(count(run.analyze_lane(), "status") == 0);
    // Without a failover between the release and the refusal, the refusal is still wrong.
    run.faults.clear();
    CHECK(count(run.analyze_lane(), "status") == 1);
}
