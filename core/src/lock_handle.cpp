#include <shedlock/error.hpp>
#include <shedlock/lease_timing.hpp>
#include <shedlock/lock_handle.hpp>

#include <algorithm>
#include <utility>

namespace shedlock {

lock_handle::lock_handle(lock_handle&& other) noexcept
    : provider_(std::exchange(other.provider_, nullptr)), lease_(std::move(other.lease_)) {}

lock_handle& lock_handle::operator=(lock_handle&& other) noexcept {
    if (this != &other) {
        release_quietly();
        provider_ = std::exchange(other.provider_, nullptr);
        lease_ = std::move(other.lease_);
    }
    return *this;
}

lock_handle::~lock_handle() { release_quietly(); }

void lock_handle::release_quietly() noexcept {
    if (!provider_) return;
    lock_provider* provider = std::exchange(provider_, nullptr);
    try {
        provider->do_unlock(lease_);
    } catch (const std::exception& e) {
        provider->report_error(lease_.name, e);
    }
}

lock_provider& lock_handle::take_provider(const char* operation) {
    if (!provider_)
        throw lock_state_error(std::string(operation) + " on lock \"" + lease_.name +
                               "\": the handle was already unlocked or extended; use the handle extend() returned");
    return *std::exchange(provider_, nullptr);
}

void lock_handle::unlock() { take_provider("unlock").do_unlock(lease_); }

std::optional<lock_handle> lock_handle::extend(std::chrono::milliseconds at_most,
                                               std::chrono::milliseconds minimum_hold) {
    validate_lock_durations("extend of lock \"" + lease_.name + "\"", at_most, minimum_hold);
    lock_provider& provider = take_provider("extend");
    std::optional<struct lease> extended;
    try {
        extended = provider.do_extend(lease_, at_most, minimum_hold);
    } catch (...) {
        provider_ = &provider;  // the backend failed: keep the handle so it can still be unlocked
        throw;
    }
    if (!extended) return std::nullopt;
    stamp_extended(*extended, lease_, at_most, minimum_hold, provider.clock());
    return lock_handle(provider, std::move(*extended));
}

}  // namespace shedlock
