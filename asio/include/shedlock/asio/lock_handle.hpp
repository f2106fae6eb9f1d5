#pragma once
/// \file
/// The handle of a lock acquired asynchronously (async_try_lock, lock_ops.hpp).

#include <shedlock/asio/detail/deliver.hpp>
#include <shedlock/asio/error.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lease_timing.hpp>

#include <boost/asio/async_result.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace shedlock::asio {

/// A held lock. Move-only, used once: async_unlock() and async_extend() take its lease, and the
/// handle is inactive from then on (async_extend completes with the handle to use next).
///
/// Destructor: a handle destroyed while still active STARTS a release and returns at once; it
/// never blocks the thread (an executor thread included) and never throws. The release completes
/// later on the service; a failure goes to the service's error handler and the lock expires at
/// lock_until. To know when (and whether) the lock was released, `co_await
/// handle.async_unlock(use_awaitable)` instead.
///
/// Thread safety: one handle from one thread (or strand) at a time. The service must outlive it.
class [[nodiscard]] lock_handle {
public:
    lock_handle(lock_service& service, lease held)
        : service_(&service), keep_(service.weak_from_this().lock()), executor_(service.get_executor()),
          lease_(std::move(held)) {}
    lock_handle(lock_handle&& other) noexcept
        : service_(std::exchange(other.service_, nullptr)),
          keep_(std::move(other.keep_)),
          executor_(other.executor_),
          lease_(std::move(other.lease_)) {}
    lock_handle& operator=(lock_handle&& other) noexcept {
        if (this != &other) {
            release_in_background();
            service_ = std::exchange(other.service_, nullptr);
            keep_ = std::move(other.keep_);
            executor_ = other.executor_;
            lease_ = std::move(other.lease_);
        }
        return *this;
    }
    lock_handle(const lock_handle&) = delete;
    lock_handle& operator=(const lock_handle&) = delete;
    ~lock_handle() { release_in_background(); }

    /// Releases the lock, honouring lock_at_least_for; completes with `void(error_code)`.
    /// errc::lock_state when the handle is inactive; a backend failure leaves the lock to expire
    /// at lock_until.
    template <typename Token>
    auto async_unlock(Token&& token);

    /// Extends the lease to now + at_most if this instance still owns a live lock; completes with
    /// `void(error_code, std::optional<lock_handle>)`: the new handle, empty when the lock expired
    /// or was taken over. On a backend failure the optional holds THIS lease again, still active,
    /// so it can still be unlocked (or extended once more).
    /// A bad duration (at_most <= 0, minimum_hold < 0 or > at_most) throws configuration_error
    /// naming the values from this call, before anything starts; the handle stays as it was.
    template <typename Token>
    auto async_extend(std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold, Token&& token);
    template <typename Token>
    auto async_extend(std::chrono::milliseconds at_most, Token&& token) {
        return async_extend(at_most, std::chrono::milliseconds{0}, std::forward<Token>(token));
    }

    bool active() const noexcept { return service_ != nullptr; }
    const std::string& name() const noexcept { return lease_.name; }
    std::optional<std::int64_t> fencing_token() const noexcept { return lease_.fencing_token; }
    timestamp lock_until() const noexcept { return lease_.lock_until; }
    const struct lease& lease() const noexcept { return lease_; }
    /// The service that granted it (null once inactive).
    lock_service* service() const noexcept { return service_; }

private:
    void release_in_background() noexcept;

    lock_service* service_;
    /// The service, when a shared_ptr owns it: a handle keeps it alive (lock_service.hpp).
    std::shared_ptr<lock_service> keep_;
    /// The service's executor, kept once inactive: a second call completes there too (as the
    /// first did), never on a thread of its own.
    lock_service::executor_type executor_;
    struct lease lease_;
};

inline void lock_handle::release_in_background() noexcept {
    if (!service_) return;
    lock_service* service = std::exchange(service_, nullptr);
    try {
        std::string name = lease_.name;
        service->start_unlock(std::move(lease_), [service, keep = std::move(keep_), name = std::move(name)](
                                                     std::exception_ptr failure) {
            if (!failure) return;
            try {
                std::rethrow_exception(failure);
            } catch (const std::exception& e) {
                service->report_error(name, e);
            } catch (...) {
            }
        });
    } catch (const std::exception& e) {
        service->report_error(lease_.name, e);
    }
}

template <typename Token>
auto lock_handle::async_unlock(Token&& token) {
    auto initiation = [this](auto handler) {
        lock_service* service = std::exchange(service_, nullptr);
        if (!service) {
            auto ex = detail::completion_executor(handler, executor_);
            detail::deliver_later(ex, std::move(handler), make_error_code(errc::lock_state));
            return;
        }
        auto ex = detail::completion_executor(handler, service->get_executor());
        service->start_unlock(std::move(lease_), [ex, keep = std::move(keep_), h = std::move(handler)](
                                                     std::exception_ptr failure) mutable {
            detail::deliver(ex, std::move(h), to_error_code(failure));
        });
    };
    return boost::asio::async_initiate<Token, void(error_code)>(std::move(initiation), token);
}

template <typename Token>
auto lock_handle::async_extend(std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                               Token&& token) {
    // The error code alone could not name the values: a bad duration is the caller's to fix.
    validate_lock_durations("extend of lock \"" + lease_.name + "\"", at_most, minimum_hold);
    auto initiation = [this, at_most, minimum_hold](auto handler) {
        lock_service* service = std::exchange(service_, nullptr);
        if (!service) {
            auto ex = detail::completion_executor(handler, executor_);
            detail::deliver_later(ex, std::move(handler), make_error_code(errc::lock_state), std::optional<lock_handle>{});
            return;
        }
        auto ex = detail::completion_executor(handler, service->get_executor());
        auto before = lease_;
        service->start_extend(std::move(lease_), at_most, minimum_hold,
                              [service, keep = std::move(keep_), ex, before = std::move(before), at_most, minimum_hold,
                               h = std::move(handler)](
                                  std::exception_ptr failure, std::optional<struct lease> extended) mutable {
                                  std::optional<lock_handle> next;
                                  if (failure) {
                                      next.emplace(*service, std::move(before));
                                  } else if (extended) {
                                      stamp_extended(*extended, before, at_most, minimum_hold, service->clock());
                                      next.emplace(*service, std::move(*extended));
                                  }
                                  detail::deliver(ex, std::move(h), to_error_code(failure), std::move(next));
                              });
    };
    return boost::asio::async_initiate<Token, void(error_code, std::optional<lock_handle>)>(std::move(initiation),
                                                                                             token);
}

}  // namespace shedlock::asio
