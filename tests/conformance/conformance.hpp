#pragma once
// The provider conformance suite: one set of Catch2 test cases that every provider's test
// program links (whole archive) and must pass. A provider's test program defines
// shedlock::conformance::make_backend() and nothing else.
//
// SHEDLOCK_CONFORMANCE_INTERFACE=awaitable|callbacks runs the same cases through the backend's
// asynchronous interface (make_async_service, tests/conformance/async/).

#include <shedlock/lock_provider.hpp>

#if SHEDLOCK_CONFORMANCE_ASYNC
#include <shedlock/asio/lock_service.hpp>
#endif

#include <chrono>
#include <memory>
#include <string>

namespace shedlock::conformance {

/// One backend under test.
class backend {
public:
    virtual ~backend() = default;
    virtual std::string name() const = 0;
    /// A provider on the shared storage, using `clock` where the backend takes a client clock.
    /// Called again in forked child processes: it must open new connections.
    virtual std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) = 0;
    /// False when lock times come from a server clock (Redis, use_db_time): the suite then
    /// waits real (short) time instead of advancing the injected clock.
    virtual bool honours_injected_clock() const { return true; }
    /// False for in-process storage (memory): the [processes] cases cannot apply. Such a backend
    /// registers its tests IN_PROCESS (cmake/shedlock_testing.cmake), which leaves them out;
    /// run by hand, they fail on this.
    virtual bool shared_across_processes() const { return true; }
    /// Whether acquisitions carry fencing tokens.
    virtual bool expects_fencing() const { return true; }
    /// Whether a new lock's first token is 1 (false: tokens start from a clock floor, as Redis's).
    virtual bool tokens_start_at_one() const { return true; }
    /// Whether delete_expired_records is supported (false: Redis, whose lock keys expire alone).
    virtual bool deletes_expired_records() const { return true; }
#if SHEDLOCK_CONFORMANCE_ASYNC
    /// The backend's asynchronous lock service on `clock`, its I/O and default completions on
    /// `executor` (an io_context that one thread runs). Default: make_provider(clock) on a pool
    /// (pooled_lock_service); a backend with a non-blocking driver returns that driver. Like
    /// make_provider, called again in forked child processes.
    virtual std::unique_ptr<asio::lock_service> make_async_service(const shedlock::clock& clock,
                                                                   asio::lock_service::executor_type executor);
#endif
};

/// Defined by each provider's test program.
std::unique_ptr<backend> make_backend();

/// The backend of this test program (created once).
backend& current_backend();

}  // namespace shedlock::conformance
