// Conformance: a release never lengthens a lease. The release carries what is left of the minimum
// hold (lock_at_least_for) as a duration; where the server's clock decides (SQL with use_db_time,
// Redis) a release that arrives late — held in transit, or re-sent after a timeout — used to add
// that duration to the server's later "now" and so held the lock past lock_at_most_for.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <thread>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::conformance;
using namespace std::chrono_literals;

namespace {

/// The host's wall clock with a monotonic clock that stands still: to the client no time passes
/// between acquisition and release, so the release asks for the whole minimum hold, while every
/// backend's "now" (the server's, or this wall clock) moves on as if the release were delayed.
class frozen_monotonic_clock final : public shedlock::clock {
public:
    timestamp now() const override { return system_clock::instance().now(); }
    monotonic_time monotonic_now() const override { return frozen_; }

private:
    const monotonic_time frozen_ = std::chrono::steady_clock::now();
};

timestamp stored_lock_until(lock_provider& provider, const std::string& name) {
    for (const auto& record : inspect(provider).list_locks())
        if (record.name == name) return record.lock_until;
    FAIL("lock \"" << name << "\" is not listed");
    return {};
}

}  // namespace

TEST_CASE("conformance: a release that arrives late never lengthens the lease", "[conformance]") {
    frozen_monotonic_clock clock;
    auto provider = current_backend().make_provider(clock);
    const lock_configuration config{fixture::unique_name("late-release"), 1000ms, 900ms};
    auto held = provider->try_lock(config);
    REQUIRE(held);
    const timestamp granted_until = stored_lock_until(*provider, config.name());
    // 800 ms "in transit": the release still asks for 900 ms more, which from the backend's now
    // would end 700 ms after the lease granted at acquisition.
    std::this_thread::sleep_for(800ms);
    held->unlock();
    const auto lock_until = stored_lock_until(*provider, config.name());
    INFO("lock_until after the release: " << format_timestamp(lock_until) << ", granted until "
                                           << format_timestamp(granted_until));
    // Redis stores whole milliseconds of a TTL; 2 ms absorb its rounding, far below the 700 ms
    // an uncapped release adds.
    CHECK(lock_until <= granted_until + 2ms);
}
