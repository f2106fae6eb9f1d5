#pragma once
// What the status server serves: the scheduler as the server sees it. Two adapters: over the
// blocking shedlock::scheduler (blocking_status_source.cpp, its io_context) and over
// shedlock::asio::scheduler (status/asio, the application's executor). The server reads and
// writes its sockets on executor(); the calls marked "backend thread" run on a thread of the
// server's own, never on executor()'s threads.

#include <shedlock/lock_provider.hpp>
#include <shedlock/metrics.hpp>
#include <shedlock/run_store.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/status_server.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::detail {

class status_source {
public:
    virtual ~status_source() = default;
    /// Every task, as scheduler::task_statuses(); empty before start. Backend thread.
    virtual std::vector<task_status> task_statuses() const = 0;
    /// Any thread.
    virtual bool running() const noexcept = 0;
    /// Listed for /api/locks, /healthz and the page, and written by the heartbeat (backend thread).
    virtual lock_provider& provider() const noexcept = 0;
    /// Read for /api/runs and the page's cluster panel (backend thread).
    virtual run_store& runs() const noexcept = 0;
    virtual const shedlock::clock& wall_clock() const noexcept = 0;
    /// The name the scheduler writes to its run records.
    virtual const std::string& instance() const noexcept = 0;
    /// The scheduler's warning sink; any thread.
    virtual void warn(const std::string& message) const = 0;
    /// Where the sockets, timers and connection state live (one thread at a time: an io_context
    /// run by one thread, or a strand).
    virtual boost::asio::any_io_executor executor() const = 0;
    /// `hook` runs on executor() when the scheduler's stop begins.
    virtual void on_stop(std::function<void()> hook) = 0;
    /// Runs `close` on executor() and waits for it, or runs it here when nothing else can run
    /// there (not running, or already on it); never waits on a thread of executor().
    virtual void close_on_executor(std::function<void()> close) = 0;
};

/// The server over `source`: what serve_status does for either scheduler (same endpoints,
/// limits, heartbeat on source->provider(); stop of the scheduler closes it).
std::unique_ptr<status_server> serve_status_from(std::shared_ptr<status_source> source, metrics_registry* metrics,
                                                 status_server_options options);

/// The adapter over the blocking scheduler (today's behaviour: its io_context, its provider).
std::shared_ptr<status_source> blocking_status_source(scheduler& tasks);

}  // namespace shedlock::detail
