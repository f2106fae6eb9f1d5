#pragma once
/// \file
/// serve_status for the scheduler on the application's executor. Component shedlock::asio_status
/// (`find_package(shedlock CONFIG COMPONENTS asio_status)`, pkg-config shedlock-asio_status).

#include <shedlock/asio/scheduler.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/status_server.hpp>

#include <memory>

namespace shedlock {

/// Serves `tasks` as serve_status(scheduler&, ...) serves a blocking scheduler: the same
/// endpoints, limits, bearer token, backend deadline and heartbeat (shedlock/status_server.hpp).
///
/// Threads: requests are read and answers written on `tasks.get_executor()` (the scheduler's
/// strand of the application's executor); every blocking backend call (list_locks for /healthz,
/// /api/locks and the page, run-store reads, the heartbeat's writes) runs on two threads of the
/// server's own, never on the application's threads; the tasks are read on the strand
/// (async_task_statuses), awaited from the server's thread.
///
/// `locks`: a blocking provider of the same backend as the scheduler's lock_service, listed by
/// the lock pages and /healthz (lock_inspector) and holding this process's heartbeat record. The
/// asio scheduler has no blocking provider of its own: with open_async_backend pass
/// `session->blocking().locks()`; with a blocking_lock_service, the provider it wraps.
///
/// Lifetime: destroy the server before the scheduler and `locks`; destroy it off the executor's
/// threads when a backend call may hang (the destructor waits for the server's threads, whose
/// calls the provider's timeouts bound). stop() or async_stop() of the scheduler closes the
/// server. Throws configuration_error as the other overload; `tasks` is left untouched.
std::unique_ptr<status_server> serve_status(asio::scheduler& tasks, lock_provider& locks, metrics_registry* metrics,
                                            status_server_options options = {});

}  // namespace shedlock
