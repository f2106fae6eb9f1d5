#include "service_tasks.hpp"

#include <shedlock/asio/task_signals.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace asio_service {
namespace {

using namespace std::chrono_literals;
using boost::asio::awaitable;
using shedlock::task_context;

/// Shows a body as running on /health while it is (suspended included).
class running_mark {
public:
    running_mark(outcome_board& board, std::string task) : board_(board), task_(std::move(task)) {
        board_.set_running(task_, true);
    }
    ~running_mark() { board_.set_running(task_, false); }
    running_mark(const running_mark&) = delete;
    running_mark& operator=(const running_mark&) = delete;

private:
    outcome_board& board_;
    std::string task_;
};

// Bodies take their sinks by value: a coroutine's parameters live in its frame, a lambda's
// captures would not.
awaitable<void> heartbeat(task_context& ctx, task_sinks sinks) {
    const auto begin = std::chrono::system_clock::now();
    running_mark mark(*sinks.board, "heartbeat");
    co_await shedlock::asio::sleep_for(ctx, 50ms);
    co_await sinks.lines->async_append(
        journal::line("heartbeat", ctx.scheduled_at(), shedlock::asio::fencing_token(ctx), begin), boost::asio::use_awaitable);
}

awaitable<void> slow_sync(task_context& ctx, task_sinks sinks) {
    const auto begin = std::chrono::system_clock::now();
    running_mark mark(*sinks.board, "slow_sync");
    // sleep_for wakes early when the scheduler stops or the lease is lost (cancellation).
    for (int step = 0; step < 3; ++step) {
        if (!co_await shedlock::asio::sleep_for(ctx, slow_sync_step)) break;
        ctx.count("steps");
    }
    co_await sinks.lines->async_append(
        journal::line("slow_sync", ctx.scheduled_at(), shedlock::asio::fencing_token(ctx), begin), boost::asio::use_awaitable);
    if (shedlock::asio::lock_lost(ctx)) throw std::runtime_error("slow_sync lost its lease while it ran");
}

awaitable<void> report(task_context& ctx, task_sinks sinks) {
    const auto begin = std::chrono::system_clock::now();
    running_mark mark(*sinks.board, "report");
    co_await shedlock::asio::sleep_for(ctx, 200ms);
    ctx.set_result("attempt " + std::to_string(ctx.claim() ? ctx.claim()->attempt : 0));
    co_await sinks.lines->async_append(
        journal::line("report", ctx.scheduled_at(), shedlock::asio::fencing_token(ctx), begin), boost::asio::use_awaitable);
}

}  // namespace

std::vector<shedlock::asio::async_task> make_service_tasks(const std::string& prefix, task_sinks sinks) {
    using shedlock::asio::make_async_task;
    std::vector<shedlock::asio::async_task> tasks;
    tasks.push_back(make_async_task(
        "heartbeat", [sinks](task_context& ctx) { return heartbeat(ctx, sinks); },
        shedlock::cron("* * * * * *", "UTC"), shedlock::lock_name(prefix + ":heartbeat"),
        shedlock::lock_at_most_for("PT10S"), shedlock::lock_at_least_for("900ms"), shedlock::misfire_grace(300ms)));
    tasks.push_back(make_async_task(
        "slow_sync", [sinks](task_context& ctx) { return slow_sync(ctx, sinks); },
        shedlock::cron("* * * * * *", "UTC"), shedlock::lock_name(prefix + ":slow_sync"),
        shedlock::lock_at_most_for("PT2S"), shedlock::keep_alive()));
    tasks.push_back(make_async_task(
        "report", [sinks](task_context& ctx) { return report(ctx, sinks); },
        shedlock::cron("*/2 * * * * *", "UTC"), shedlock::lock_name(prefix + ":report"),
        shedlock::lock_at_most_for("PT5S"), shedlock::idempotency_key(prefix + ":report:{datetime}")));
    return tasks;
}

}  // namespace asio_service
