#pragma once
/// \file
/// The storage-neutral lock provider every backend implements (locking only; reading and
/// administering records is lock_inspector's, lock_inspector.hpp).

#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/time.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace shedlock {

class lock_handle;
namespace detail {
struct lock_provider_access;
}

/// What a backend granted to one acquisition (or extension).
struct lease {
    std::string name;
    std::string owner;             ///< owner token written to `locked_by`
    timestamp locked_at;           ///< as stored by the backend
    timestamp lock_until;          ///< end of the lease, in the backend's time base
    timestamp minimum_hold_until;  ///< unlock leaves the lock held until here (lock_at_least_for); for display
    std::optional<std::int64_t> fencing_token;  ///< empty when the backend has no counter
    /// The same minimum hold on clock().monotonic_now(), set by try_lock/extend once the backend
    /// answered. Unlock hands the backend only what is left of it (remaining_minimum_hold), so a
    /// wall clock stepped while the lock is held neither stretches the hold past
    /// lock_at_least_for nor cuts it short.
    monotonic_time minimum_hold_deadline{};
    /// The end of the lease on the same monotonic clock, counted from the backend's answer (so
    /// never before the backend's own lock_until). A minimum hold that ends after it (an extension
    /// shorter than what is left of lock_at_least_for) is the one case in which a release may
    /// keep the lock past its stored lock_until.
    monotonic_time lease_deadline{};
};

/// Receives failures that cannot be thrown (an unlock from a destructor).
using lock_error_handler = std::function<void(const std::string& lock_name, const std::exception& e)>;

/// A named lease lock on some storage: the lock provider of a backend. Listing records, operator
/// releases and the backend's clock are its lock_inspector's (inspect(provider)), so code that
/// only locks sees only locking.
///
/// `try_lock` is ONE atomic operation on the backend. It succeeds when no record exists or the
/// record's `lock_until <= now`; it then writes a fresh owner token, `locked_at = now`,
/// `lock_until = now + lock_at_most_for` and increments the fencing token. When the lock is live
/// it changes nothing and returns an empty optional: contention is not an error. It never waits
/// for the lock to become free; `try_lock_for` (lock_wait.hpp) does, on top of it.
///
/// Failure: a backend that cannot be reached or answers with an error makes `try_lock` throw
/// `storage_error`; the lock then counts as not acquired. Invalid names never reach the backend
/// (`configuration_error`).
///
/// Crash: a holder that dies keeps the lock until `lock_until`; the lease bounds the damage.
///
/// Lifetime: a provider must outlive every handle it returned.
///
/// Thread safety: all providers are safe for concurrent use from multiple threads without any
/// external synchronization. A `lock_handle` itself is not; use one handle from one thread at a time.
class lock_provider {
public:
    virtual ~lock_provider() = default;
    lock_provider(const lock_provider&) = delete;
    lock_provider& operator=(const lock_provider&) = delete;

    /// Acquires `config.name()` for `config.lock_at_most_for()`, or returns empty when it is held.
    [[nodiscard]] std::optional<lock_handle> try_lock(const lock_configuration& config);

    /// True when acquisitions carry a fencing token (false e.g. on a plain ShedLock table).
    virtual bool supports_fencing() const = 0;

    /// The backend's lock_inspector (listing, operator release, its clock), or nullptr when it
    /// has none. Callers use inspect(provider), which turns nullptr into an explanation.
    virtual lock_inspector* inspector() noexcept { return nullptr; }

    /// Called when an unlock from a destructor fails (default: one line on stderr).
    void set_error_handler(lock_error_handler handler);

    /// The clock used for lock times (unless the backend uses its own server clock).
    const shedlock::clock& clock() const noexcept { return *clock_; }

protected:
    explicit lock_provider(const shedlock::clock& clock = system_clock::instance()) : clock_(&clock) {}

private:
    friend class lock_handle;
    friend struct detail::lock_provider_access;  // adapters to the asynchronous interface
    /// Acquire with the given owner token; empty when the lock is live.
    virtual std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) = 0;
    /// Release: `lock_until = min(lock_until, now + remaining_minimum_hold(held))` for the live
    /// record owned by `held.owner` (without the min where minimum_hold_outlasts_lease(held)). A
    /// release never lengthens a lease: one that arrives late (delayed in transit, retried after a
    /// timeout) must not hold the lock past what the backend granted. A record owned by someone
    /// else is left untouched.
    virtual void do_unlock(const lease& held) = 0;
    /// If still owner and `lock_until > now`: `lock_until = now + at_most`. Empty otherwise.
    virtual std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                           std::chrono::milliseconds minimum_hold) = 0;

    void report_error(const std::string& name, const std::exception& e) noexcept;

protected:
    /// Releases `live` for its holder (owner-checked like any unlock): what a backend's
    /// lock_inspector::do_force_release does when it is the provider itself.
    void release_record(const lock_record& live, timestamp now);
    /// What is left of `held`'s minimum hold (lock_at_least_for), measured on the monotonic clock
    /// and rounded up; zero once it has passed. Never more than the lock_at_least_for granted.
    std::chrono::milliseconds remaining_minimum_hold(const lease& held) const;
    /// True when `held`'s minimum hold ends after its lease (an extension shorter than what was
    /// left of lock_at_least_for): only then may a release set lock_until past the stored value.
    static bool minimum_hold_outlasts_lease(const lease& held) noexcept;

private:

    const shedlock::clock* clock_;
    lock_error_handler error_handler_;
};

}  // namespace shedlock

#include <shedlock/lock_handle.hpp>
