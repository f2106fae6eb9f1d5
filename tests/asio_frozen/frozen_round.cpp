#include "frozen_round.hpp"

#include "tick_probe.hpp"

#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <map>
#include <optional>
#include <sstream>

namespace shedlock::test {
namespace {

using namespace std::chrono_literals;
using boost::asio::awaitable;
using boost::asio::use_awaitable;
using steady = std::chrono::steady_clock;

const std::chrono::milliseconds tick_period = 50ms;

/// Runs `io` on this thread until `done` (or `limit` passed); true when done.
bool run_until(boost::asio::io_context& io, const std::function<bool()>& done, std::chrono::milliseconds limit) {
    const auto deadline = steady::now() + limit;
    while (!done() && steady::now() < deadline) {
        if (io.stopped()) io.restart();
        io.run_one_for(20ms);
    }
    return done();
}

/// Locks and unlocks a fresh name until it works (or `limit`); counts the failures before.
awaitable<void> lock_until_it_works(asio::lock_service& locks, std::string name, std::chrono::milliseconds limit,
                                    bool& succeeded, int& failures) {
    boost::asio::steady_timer pause(co_await boost::asio::this_coro::executor);
    const auto deadline = steady::now() + limit;
    while (!succeeded && steady::now() < deadline) {
        try {
            auto handle = co_await asio::async_try_lock(locks, lock_configuration{name, 60s}, use_awaitable);
            if (handle) {
                co_await handle->async_unlock(use_awaitable);
                succeeded = true;
                co_return;
            }
        } catch (const boost::system::system_error&) {
        }
        ++failures;
        pause.expires_after(100ms);
        co_await pause.async_wait(use_awaitable);
    }
}

}  // namespace

std::string frozen_report::summary(const std::string& backend) const {
    std::ostringstream out;
    std::map<std::string, int> codes;
    for (const auto& error : errors) ++codes[error ? error.message() : "no error"];
    out << "asio_frozen " << backend << ": " << errors.size() << " calls ended after " << waited.count()
        << " ms (" << acquired << " acquired, " << held_elsewhere << " held elsewhere;";
    for (const auto& [message, count] : codes) out << " " << count << " x \"" << message << "\"";
    out << "); ticker " << ticks
        << " ticks, lateness max " << max_late.count() / 1000.0 << " ms, median " << median_late.count() / 1000.0
        << " ms; after the thaw " << (recovered ? "locked" : "NOT locked") << " after " << failures_after_thaw
        << " failed calls";
    return out.str();
}

frozen_report frozen_round(boost::asio::io_context& io, asio::lock_service& locks, const std::function<void()>& freeze,
                           const std::function<void()>& thaw, int calls, std::chrono::milliseconds limit) {
    frozen_report report;
    auto guard = boost::asio::make_work_guard(io);
    int warm_failures = 0;
    boost::asio::co_spawn(io, lock_until_it_works(locks, "warm-up", limit, report.warmed_up, warm_failures),
                          boost::asio::detached);
    run_until(io, [&] { return report.warmed_up; }, limit);
    if (!report.warmed_up) return report;

    freeze();
    tick_probe ticker(io, tick_period);
    ticker.start();
    const auto start = steady::now();
    std::vector<std::optional<asio::lock_handle>> granted;  // none expected; released when destroyed
    for (int i = 0; i < calls; ++i)
        asio::async_try_lock(locks, lock_configuration{"frozen-" + std::to_string(i), 60s},
                             [&](asio::error_code error, std::optional<asio::lock_handle> handle) {
                                 report.errors.push_back(error);
                                 if (handle) ++report.acquired, granted.push_back(std::move(handle));
                                 else if (!error) ++report.held_elsewhere;
                             });
    run_until(io, [&] { return report.errors.size() == static_cast<std::size_t>(calls); }, limit);
    report.waited = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - start);
    ticker.stop();
    report.ticks = ticker.lateness().size();
    report.max_late = ticker.max_lateness();
    report.median_late = ticker.median_lateness();

    thaw();
    boost::asio::co_spawn(io, lock_until_it_works(locks, "after-thaw", limit, report.recovered, report.failures_after_thaw),
                          boost::asio::detached);
    run_until(io, [&] { return report.recovered; }, limit);
    granted.clear();
    guard.reset();
    // The releases of anything granted (none expected). Not until io runs out of work: a native
    // driver keeps its connections' reads pending for as long as it lives.
    if (io.stopped()) io.restart();
    io.run_for(200ms);
    return report;
}

}  // namespace shedlock::test
