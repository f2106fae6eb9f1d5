#include <shedlock/error.hpp>
#include <shedlock/lock_handle.hpp>

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

std::optional<lock_handle> lock_handle::extend(std::chrono::milliseconds at_most, std::chrono::milliseconds at_least) {
    if (at_most.count() <= 0 || at_least.count() < 0 || at_least > at_most)
        throw configuration_error("extend of lock \"" + lease_.name +
                                  "\": need 0 <= lock_at_least_for <= lock_at_most_for and lock_at_most_for > 0");
    lock_provider& provider = take_provider("extend");
    std::optional<struct lease> extended;
    try {
        extended = provider.do_extend(lease_, at_most, at_least);
    } catch (...) {
        provider_ = &provider;  // the backend failed: keep the handle so it can still be unlocked
        throw;
    }
    if (!extended) return std::nullopt;
    return lock_handle(provider, std::move(*extended));
}

}  // namespace shedlock
