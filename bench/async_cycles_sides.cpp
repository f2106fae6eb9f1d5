// The library's two sides of bench/async_cycles: the asynchronous service through the public
// token API (coroutines, use_awaitable), and the blocking provider one cycle after the other.
#include "async_cycles.hpp"

#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>
#include <stdexcept>

namespace shedlock::bench {
namespace {

namespace net = boost::asio;

/// What one slice of our side shares between its coroutines (all on the one io_context thread).
struct async_run {
    long cycles = 0;
    int active = 0;
    std::exception_ptr failure;
};

net::awaitable<void> lock_loop(shedlock::asio::lock_service& service, lock_configuration config,
                               bench_clock::time_point deadline, async_run& run) {
    do {
        auto held = co_await shedlock::asio::async_try_lock(service, config, net::use_awaitable);
        if (!held) throw std::runtime_error("async side: lock \"" + config.name() + "\" unexpectedly held");
        co_await held->async_unlock(net::use_awaitable);
        ++run.cycles;
    } while (bench_clock::now() < deadline && !run.failure);
}

}  // namespace

cycle_runner async_side(shedlock::asio::lock_service& service, net::io_context& io, std::vector<std::string> names,
                        std::chrono::milliseconds at_most) {
    std::vector<lock_configuration> configs;
    for (auto& name : names) configs.emplace_back(name, at_most);
    return [&service, &io, configs = std::move(configs)](bench_clock::time_point deadline) {
        async_run run;
        run.active = static_cast<int>(configs.size());
        for (const auto& config : configs)
            net::co_spawn(io, lock_loop(service, config, deadline, run), [&run](std::exception_ptr e) {
                if (e && !run.failure) run.failure = e;
                --run.active;
            });
        run_until_idle(io, &run.active);
        if (run.failure) std::rethrow_exception(run.failure);
        return run.cycles;
    };
}

cycle_runner blocking_side(lock_provider& provider, std::string name, std::chrono::milliseconds at_most) {
    return [&provider, config = lock_configuration(std::move(name), at_most)](bench_clock::time_point deadline) {
        long cycles = 0;
        do {
            auto held = provider.try_lock(config);
            if (!held) throw std::runtime_error("blocking side: lock \"" + config.name() + "\" unexpectedly held");
            held->unlock();
            ++cycles;
        } while (bench_clock::now() < deadline);
        return cycles;
    };
}

}  // namespace shedlock::bench
