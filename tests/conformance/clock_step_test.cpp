// Conformance: a wall-clock step (an NTP step, a resumed VM) while a lock is held changes neither
// its minimum hold (lock_at_least_for) nor anything beyond it. The remaining hold is measured on
// the monotonic clock; each backend then applies it from its own "now".
#include "suite_support.hpp"

#include <atomic>
#include <optional>
#include <thread>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::conformance;
using namespace std::chrono_literals;

namespace {

/// The host's clocks, with a wall clock that a test can step; the monotonic clock runs on.
class stepped_clock final : public shedlock::clock {
public:
    timestamp now() const override { return system_clock::instance().now() + std::chrono::milliseconds{offset_ms_.load()}; }
    monotonic_time monotonic_now() const override { return std::chrono::steady_clock::now(); }
    void step(std::chrono::milliseconds by) { offset_ms_ += by.count(); }

private:
    std::atomic<std::int64_t> offset_ms_{0};
};

constexpr auto at_least = 500ms;
constexpr auto at_most = 30s;
constexpr auto step_back = std::chrono::milliseconds{std::chrono::hours{1}};
// Within lock_at_most_for: a backend that decides by the client clock (memory, SQLite, client-time
// SQL) rightly counts a lease as expired once that clock passes lock_until.
constexpr auto step_forward = std::chrono::milliseconds{10s};

/// Tries the lock until it is acquired; how long after `released` that was, or nothing within a
/// generous deadline (far below the hour a stretched hold would last). Polling for the event, where
/// a fixed sleep past lock_at_least_for would only hope the hold was over.
std::optional<std::chrono::steady_clock::duration> free_after(lock_provider& provider, const lock_configuration& config,
                                                              std::chrono::steady_clock::time_point released) {
    const auto deadline = released + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (provider.try_lock(config)) return std::chrono::steady_clock::now() - released;
        std::this_thread::sleep_for(10ms);
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("conformance: a wall clock stepped back does not stretch the minimum hold", "[conformance]") {
    stepped_clock wall;
    auto provider = current_backend().make_provider(wall);
    const lock_configuration config{fixture::unique_name("step-back"), at_most, at_least};
    auto held = provider->try_lock(config);
    REQUIRE(held);
    wall.step(-step_back);
    const auto released = std::chrono::steady_clock::now();
    held->unlock();
    // Held for what was left of lock_at_least_for, not for that plus the hour the clock went back.
    CHECK_FALSE(provider->try_lock(config));
    CHECK(free_after(*provider, config, released));
}

TEST_CASE("conformance: a wall clock stepped forward does not cut the minimum hold short", "[conformance]") {
    stepped_clock wall;
    auto provider = current_backend().make_provider(wall);
    const lock_configuration config{fixture::unique_name("step-forward"), at_most, at_least};
    auto held = provider->try_lock(config);
    REQUIRE(held);
    wall.step(step_forward);
    held->unlock();
    CHECK_FALSE(provider->try_lock(config));
    CHECK(free_after(*provider, config, std::chrono::steady_clock::now()));
}
