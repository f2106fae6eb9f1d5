#pragma once
/// \file
/// The RAII handle of a held lock.

#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <optional>

namespace shedlock {

/// A held lock. Move-only; the destructor unlocks a lock that is still held and never throws
/// (failures go to the provider's error handler; the lease bounds the damage).
///
/// A handle is used once: after `unlock()` or `extend()` it is inactive, and a second call is
/// a `lock_state_error`. `extend()` returns the handle to use from then on.
class [[nodiscard]] lock_handle {
public:
    lock_handle(lock_provider& provider, lease held) : provider_(&provider), lease_(std::move(held)) {}
    lock_handle(lock_handle&& other) noexcept;
    lock_handle& operator=(lock_handle&& other) noexcept;
    lock_handle(const lock_handle&) = delete;
    lock_handle& operator=(const lock_handle&) = delete;
    ~lock_handle();

    /// Releases the lock, honouring lock_at_least_for. Throws lock_state_error when inactive,
    /// storage_error when the backend fails (the lock then expires at `lock_until`).
    void unlock();

    /// Extends the lease to now + at_most if this instance still owns a live lock. On success
    /// returns the new handle; empty when the lock expired or was taken over. Either way this
    /// handle becomes inactive. Throws lock_state_error when inactive; on storage_error the handle
    /// stays active (it can still be unlocked).
    [[nodiscard]] std::optional<lock_handle> extend(
        std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold = std::chrono::milliseconds{0});

    bool active() const noexcept { return provider_ != nullptr; }
    const std::string& name() const noexcept { return lease_.name; }
    std::optional<std::int64_t> fencing_token() const noexcept { return lease_.fencing_token; }
    timestamp lock_until() const noexcept { return lease_.lock_until; }
    const struct lease& lease() const noexcept { return lease_; }

private:
    lock_provider& take_provider(const char* operation);
    void release_quietly() noexcept;

    lock_provider* provider_;
    struct lease lease_;
};

}  // namespace shedlock
