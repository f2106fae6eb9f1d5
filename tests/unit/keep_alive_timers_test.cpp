// The timers keep-alives run on (timer_service.hpp, detail/repeating_timer.hpp): the shared timer
// thread calls in due order and drops cancelled calls; a repeating timer's stop() waits for a step
// under way and no step starts after it, the guarantee that lets a keep-alive refer to a
// task_context that is destroyed right after.
#include <shedlock/detail/repeating_timer.hpp>
#include <shedlock/timer_service.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds patience) {
    const auto until = std::chrono::steady_clock::now() + patience;
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

}  // namespace

TEST_CASE("keep-alive timers: the shared timer thread calls in due order and drops cancelled calls", "[keep_alive]") {
    auto& timers = shared_timer_service();
    std::mutex mutex;
    std::vector<int> called;
    const auto note = [&](int n) {
        return [&, n] {
            std::lock_guard lock(mutex);
            called.push_back(n);
        };
    };
    (void)timers.call_after(60ms, note(3));
    const auto dropped = timers.call_after(30ms, note(99));
    (void)timers.call_after(20ms, note(2));
    (void)timers.call_after(0ms, note(1));
    timers.cancel(dropped);
    timers.cancel(dropped);  // twice: ignored
    REQUIRE(wait_until([&] { std::lock_guard lock(mutex); return called.size() >= 3; }, 5s));
    std::this_thread::sleep_for(50ms);
    std::lock_guard lock(mutex);
    CHECK(called == std::vector<int>{1, 2, 3});
}

TEST_CASE("keep-alive timers: stop waits for a step under way and no step follows", "[keep_alive]") {
    std::atomic<int> started{0}, finished{0};
    auto timer = std::make_unique<detail::repeating_timer>(
        shared_timer_service(), 0ms, [&]() -> std::optional<std::chrono::steady_clock::duration> {
            ++started;
            std::this_thread::sleep_for(100ms);  // an extension waiting for a slow backend
            ++finished;
            return 1ms;
        });
    REQUIRE(wait_until([&] { return started.load() == 1; }, 5s));
    timer->stop();  // during the first step
    CHECK(finished.load() == 1);
    timer.reset();
    std::this_thread::sleep_for(50ms);
    CHECK(started.load() == 1);
}

TEST_CASE("keep-alive timers: a step that returns no delay ends the repetition", "[keep_alive]") {
    std::atomic<int> steps{0};
    detail::repeating_timer timer(shared_timer_service(), 1ms,
                                  [&]() -> std::optional<std::chrono::steady_clock::duration> {
                                      if (++steps == 3) return std::nullopt;  // a failed extension
                                      return 1ms;
                                  });
    REQUIRE(wait_until([&] { return steps.load() == 3; }, 5s));
    std::this_thread::sleep_for(30ms);
    CHECK(steps.load() == 3);
}
