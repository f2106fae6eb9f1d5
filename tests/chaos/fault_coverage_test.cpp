// The fault coverage check on hand-made runs: a configured kind that never fired is reported,
// one that fired (as an injector event or, for clock faults, as an attempt) is not.
#include "fault_coverage.hpp"

#include <catch2/catch.hpp>

namespace {

using namespace shedlock::chaos;

const std::vector<lane> sqlite_lanes{{"client_time", "L", "sqlite:x", true, false, -1, 3000}};
const std::vector<lane> server_lanes{{"client_time", "L", "postgresql://h/d", true, false, 0, 3000}};

attempt_record skewed_attempt(bool jump) {
    attempt_record r;
    r.plan.clock = {3000, jump};
    return r;
}

}  // namespace

TEST_CASE("chaos fault coverage: a configured kind that never fired is reported", "[chaos][coverage]") {
    const std::set<std::string> configured{"kill_cli", "stop", "restart", "clock", "clock_jump"};
    const auto kinds = applicable_fault_kinds(configured, server_lanes);
    CHECK(kinds == configured);
    const std::vector<fault_event> faults{{"kill_cli", 1, 1, -1, 7}, {"restart", 2, 3, 0, -1}};
    const std::vector<attempt_record> attempts{skewed_attempt(false), attempt_record{}};
    CHECK(unfired_fault_kinds(kinds, faults, attempts) == std::vector<std::string>{"clock_jump", "stop"});
    const std::vector<fault_event> all{{"kill_cli", 1, 1, -1, 7}, {"restart", 2, 3, 0, -1}, {"stop", 4, 5, -1, 9}};
    CHECK(unfired_fault_kinds(kinds, all, {skewed_attempt(false), skewed_attempt(true)}).empty());
}

TEST_CASE("chaos fault coverage: server faults do not apply without a server", "[chaos][coverage]") {
    const std::set<std::string> configured{"kill_cli", "restart", "latency", "black_hole", "reset", "release_delay", "clock"};
    CHECK(applicable_fault_kinds(configured, sqlite_lanes) == std::set<std::string>{"clock", "kill_cli"});
    CHECK(unfired_fault_kinds(applicable_fault_kinds(configured, sqlite_lanes), {}, {}) ==
          std::vector<std::string>{"clock", "kill_cli"});
}
