#pragma once
/// \file
/// The asynchronous lock service: the second interface beside lock_provider. A backend implements
/// one of the two natively; adapters give it the other (pooled_lock_service runs a blocking
/// provider on a pool, blocking_lock_provider drives an asynchronous service to completion).

#include <shedlock/asio/detail/unique_function.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/time.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>

namespace shedlock::asio {

/// The completion of a service operation: the failure (null on success) and the value.
template <typename T>
using completion = detail::unique_function<void(std::exception_ptr, T)>;
using void_completion = detail::unique_function<void(std::exception_ptr)>;

/// A named lease lock as asynchronous operations, with the semantics of lock_provider
/// (docs/lock-semantics.md): one atomic operation per call; "held elsewhere" is an empty
/// optional, never a failure; a failure is a storage_error (or configuration_error) carried as
/// an exception_ptr, with the backend's retry advice.
///
/// Applications call the operations through async_try_lock (lock_ops.hpp) with any completion
/// token; the start_* members are the backend's side.
///
/// Completion: a start_* call never completes inside the call; it calls `done` exactly once,
/// later, on a thread of the service (its executor, or its pool). `done` must not block.
///
/// Lifetime: a service owned by a shared_ptr (every service async_session hands out) is kept
/// alive by its operations in flight and by the handles it granted, so it may be let go first. A
/// service owned otherwise must outlive them.
///
/// Thread safety: start_* may be called concurrently from any thread.
class lock_service : public std::enable_shared_from_this<lock_service> {
public:
    using executor_type = boost::asio::any_io_executor;

    virtual ~lock_service() = default;
    lock_service(const lock_service&) = delete;
    lock_service& operator=(const lock_service&) = delete;

    /// The executor the service's I/O runs on; handlers without an associated executor of their
    /// own complete there.
    virtual executor_type get_executor() const = 0;
    /// True when acquisitions carry a fencing token.
    virtual bool supports_fencing() const = 0;
    /// The clock of lock times and of the handles' monotonic deadlines.
    virtual const shedlock::clock& clock() const noexcept = 0;
    /// How the service reaches its backend, for messages and docs ("redis, non-blocking
    /// hiredis on Asio", "sqlite, blocking calls on a pool of 4 threads").
    virtual std::string describe() const = 0;

    /// Acquire `config.name()` with the owner token `owner`; empty when the lock is live.
    virtual void start_try_lock(const lock_configuration& config, std::string owner,
                                completion<std::optional<lease>> done) = 0;
    /// Release `held` as lock_provider::do_unlock does (owner-checked, honouring the minimum hold:
    /// remaining_minimum_hold(held, clock()), never lengthening the lease).
    virtual void start_unlock(lease held, void_completion done) = 0;
    /// Extend `held` as lock_provider::do_extend does; empty when no longer the owner of a live lock.
    virtual void start_extend(lease held, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                              completion<std::optional<lease>> done) = 0;

    /// Called when a release started by a handle's destructor fails (default: one line on stderr).
    void set_error_handler(lock_error_handler handler) { error_handler_ = std::move(handler); }
    /// Reports a failed release from a destructor to the error handler; never throws.
    void report_error(const std::string& name, const std::exception& e) noexcept;

protected:
    lock_service() = default;

private:
    lock_error_handler error_handler_;
};

}  // namespace shedlock::asio
