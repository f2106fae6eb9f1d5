#pragma once
// A window for "nothing fired" checks measured in firings, not in wall time: a scheduler of its
// own runs a task every `period`; wait_for_firings(n) returns once that task fired n more times.
// A stalled machine stalls the witness as well, so the window always holds n firings of a live
// scheduler, where a fixed sleep may hold none.

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/scheduler.hpp>

#include <atomic>
#include <chrono>
#include <thread>

namespace shedlock::test {

class firing_witness {
public:
    explicit firing_witness(std::chrono::milliseconds period) : scheduler_(locks_, runs_) {
        scheduler_.add(make_task("witness", [this](task_context&) { ++firings_; }, fixed_rate(period),
                                 lock_at_most_for("PT1M")));
        scheduler_.start();
    }
    ~firing_witness() { scheduler_.stop(std::chrono::seconds{5}); }
    firing_witness(const firing_witness&) = delete;
    firing_witness& operator=(const firing_witness&) = delete;

    /// Waits until the witness fired `n` more times; false if that took over `timeout` (a
    /// generous deadline: the witness itself did not fire).
    bool wait_for_firings(int n, std::chrono::milliseconds timeout = std::chrono::seconds{30}) {
        const int target = firings_.load() + n;
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (firings_.load() < target) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds{2});
        }
        return true;
    }

private:
    providers::memory_lock_provider locks_;
    memory_run_store runs_;
    std::atomic<int> firings_{0};
    scheduler scheduler_;
};

}  // namespace shedlock::test
