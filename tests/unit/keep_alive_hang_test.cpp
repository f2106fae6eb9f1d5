// A kept-alive body that throws while its extension hangs (a backend call of 300 ms): execute()
// reports the failure, waits for the extension under way, and only then unlocks, once per run.
#include <shedlock/locking_task_executor.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;

namespace {

class hanging_provider final : public lock_provider {
public:
    std::atomic<int> in_extend{0};
    std::atomic<int> unlocks{0};
    std::atomic<int> unlocks_during_extend{0};
    bool supports_fencing() const override { return false; }

private:
    std::optional<lease> do_try_lock(const lock_configuration& c, const std::string& owner) override {
        return lease{c.name(), owner, {}, {}, {}, std::nullopt};
    }
    void do_unlock(const lease&) override {
        if (in_extend.load() != 0) ++unlocks_during_extend;
        ++unlocks;
    }
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds, std::chrono::milliseconds) override {
        ++in_extend;
        std::this_thread::sleep_for(300ms);
        --in_extend;
        return held;
    }
};

}  // namespace

TEST_CASE("keep-alive: a body throwing while its extension hangs is failed and unlocked after it",
          "[executor][keep_alive]") {
    hanging_provider locks;
    locking_task_executor executor(locks);
    execute_options options;
    options.keep_alive = true;  // extended every 50 ms
    for (int i = 0; i < 3; ++i) {
        const auto result = executor.execute([&](task_context&) {
            while (locks.in_extend.load() == 0) std::this_thread::sleep_for(1ms);
            throw std::runtime_error("body failed");
        }, lock_configuration{"hang", 100ms}, options);
        CHECK(result.outcome == run_outcome::failed);
    }
    CHECK(locks.unlocks.load() == 3);
    CHECK(locks.unlocks_during_extend.load() == 0);
}
