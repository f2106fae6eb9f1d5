// Keep-alive against a backend whose extensions hang (1.5 s each): stop() while they hang returns
// once they do, bounded by the hang and not by the number of tasks (the extensions run at once
// on the shared extension pool), and every lock taken is released; nothing runs after the
// scheduler is gone (TSan-clean in a hand-built sanitizer harness).
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/scheduler.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::wait_for;

namespace {

/// Every lock is granted; every extension takes 1.5 s (a backend that stopped answering, until
/// its statement timeout) and then succeeds.
class hanging_provider final : public lock_provider {
public:
    std::atomic<int> in_extend{0};
    std::atomic<int> locked{0};
    std::atomic<int> unlocked{0};
    bool supports_fencing() const override { return false; }

private:
    std::optional<lease> do_try_lock(const lock_configuration& c, const std::string& owner) override {
        ++locked;
        return lease{c.name(), owner, {}, {}, {}, std::nullopt};
    }
    void do_unlock(const lease&) override { ++unlocked; }
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds, std::chrono::milliseconds) override {
        ++in_extend;
        std::this_thread::sleep_for(1500ms);
        --in_extend;
        return held;
    }
};

}  // namespace

TEST_CASE("keep-alive: stop while extensions hang returns when they do and releases every lock",
          "[scheduler][keep_alive]") {
    hanging_provider locks;
    memory_run_store store;
    {
        scheduler s(locks, store);
        for (int i = 0; i < 4; ++i)
            s.add(make_task("hang-" + std::to_string(i), [](task_context& c) {
                while (!c.cancellation_requested()) std::this_thread::sleep_for(5ms);
            }, fixed_rate(1h), lock_at_most_for("200ms"), keep_alive(true)));  // extended every 100 ms
        s.start();
        REQUIRE(wait_for([&] { return locks.in_extend.load() >= 3; }, 5s));
        const auto before = std::chrono::steady_clock::now();
        s.stop(100ms);
        CHECK(std::chrono::steady_clock::now() - before < 3s);
        CHECK(locks.in_extend.load() == 0);
    }
    CHECK(locks.locked.load() >= 3);
    CHECK(locks.unlocked.load() == locks.locked.load());
}
