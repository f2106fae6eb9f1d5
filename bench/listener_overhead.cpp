// listener_overhead: what executor listeners cost, on the memory provider (the cycle where any
// overhead shows most: no I/O), one thread, one lock, an empty body.
//
//   executor          locking_task_executor with no metrics and no listener (the default path)
//   hand-written      the floor: the same cycle written by hand against the provider's public API
//                     (try_lock, a task_context with the handle, the body under try/catch,
//                     detach, unlock), with none of the executor's extras
//   no-op listener    the executor with one registered listener whose hooks do nothing
//   metrics           the executor with a metrics registry (its own first listener)
//
// Each slice interleaves the variants in bursts of `burst` cycles, the order reversed every other
// turn (bench_stats.hpp), so machine load hits all alike. Reported: cycles/s and CPU us/cycle,
// and the per-slice time ratios executor / hand-written, no-op listener / executor, metrics /
// executor: medians [min-max] over the slices, never the best slice. Never a timed assertion.
//
//   listener_overhead [slices=21] [seconds_per_slice=0.5] [burst=2000]
#include "bench_stats.hpp"

#include <shedlock/detail/task_context_access.hpp>
#include <shedlock/executor_listener.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <cstdio>
#include <memory>
#include <string>

using namespace shedlock;

namespace {

class no_op_listener final : public executor_listener {};

/// The floor: one lock cycle with a task_context, as a user would write it without the executor.
void hand_written_cycle(lock_provider& provider, const lock_configuration& config, const locked_task& body) {
    auto handle = provider.try_lock(config);
    if (!handle) return;
    task_context context(config.name(), timestamp{});
    // The executor's side of the context (attach, detach) is not the task's: the floor does what
    // the executor does, through the same access.
    detail::task_context_access::attach(context, &*handle);
    try {
        body(context);
    } catch (const std::exception&) {
        // A failed body still unlocks.
    }
    if (auto final_handle = detail::task_context_access::detach(context)) final_handle->unlock();
}

}  // namespace

int main(int argc, char** argv) {
    const int slices = argc > 1 ? std::stoi(argv[1]) : 21;
    const std::chrono::duration<double> slice_length{argc > 2 ? std::stod(argv[2]) : 0.5};
    const long burst = argc > 3 ? std::stol(argv[3]) : 2000;

    providers::memory_lock_provider provider;
    metrics_registry metrics;
    locking_task_executor plain(provider);
    locking_task_executor listened(provider);
    listened.add_listener(std::make_shared<no_op_listener>());
    locking_task_executor measured(provider, metrics, "memory");
    const lock_configuration config{"bench-cycle", std::chrono::seconds{60}};
    const locked_task body = [](task_context&) {};

    const bench::variant_list variants{
        {"executor", [&] { (void)plain.execute(body, config); }},
        {"hand-written", [&] { hand_written_cycle(provider, config, body); }},
        {"no-op listener", [&] { (void)listened.execute(body, config); }},
        {"metrics", [&] { (void)measured.execute(body, config); }},
    };
    bench::print_load("start");
    for (const auto& v : variants)
        for (int i = 0; i < 20000; ++i) v.second();  // warm-up: caches, branch predictors, the metrics' series
    const auto results = bench::run_slices(variants, slices, slice_length, burst);
    std::printf("executor cycle on the memory provider, one thread: %d slices of %.2fs per variant, alternating every "
                "%ld cycles\n",
                slices, slice_length.count(), burst);
    bench::report_rates(variants, results);
    std::printf("  time per cycle / time per cycle of the other, per slice (median [min-max]):\n");
    bench::report_ratio(variants, results, 0, 1);
    bench::report_ratio(variants, results, 2, 0);
    bench::report_ratio(variants, results, 3, 0);
    bench::print_load("end");
    return 0;
}
