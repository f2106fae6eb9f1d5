#pragma once
/// \file
/// Redis locks without blocking a thread: the lock service of the non-blocking driver (hiredis's
/// asynchronous API on Asio), for programs that hold an executor. Needs shedlock::redis_asio.

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <memory>

namespace shedlock::providers {

/// Creates a lock service with the semantics and keys of make_redis_lock_provider (the same Lua
/// scripts, fencing tokens, retry advice), whose I/O runs on one strand of `executor`: no call
/// blocks a thread, and many operations may be in flight on one thread. Options are validated
/// here (configuration_error); no connection is made until the first operation.
///
/// Connections: up to options.pool_size, opened on demand, each pipelining any number of
/// commands. Timeouts: connect_timeout bounds resolving, connecting and AUTH/SELECT;
/// command_timeout bounds each reply (a command past it fails in doubt and its connection is
/// closed). A failure is a storage_error with the blocking provider's retry advice.
///
/// Lifetime: the service must outlive every operation in flight and every handle it granted;
/// operations still in flight when it is destroyed never complete (their locks expire at
/// lock_until). `executor` (its execution context) must outlive the service. `clock` only
/// measures the remaining lock_at_least_for at unlock, as for the blocking provider.
///
/// Thread safety: the start_* members may be called from any thread.
///
/// Throws configuration_error for Sentinel options or wait_replicas: this driver does neither
/// (open_async_backend runs such URIs on the blocking provider in a pool).
std::unique_ptr<shedlock::asio::lock_service> make_redis_async_lock_service(
    const redis_options& options, boost::asio::any_io_executor executor,
    const shedlock::clock& clock = system_clock::instance());

}  // namespace shedlock::providers
