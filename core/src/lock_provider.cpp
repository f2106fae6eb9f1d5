#include <shedlock/detail/release_failure.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lease_timing.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/owner_token.hpp>

#include <algorithm>
#include <iostream>

namespace shedlock {

std::optional<lock_handle> lock_provider::try_lock(const lock_configuration& config) {
    auto granted = do_try_lock(config, make_owner_token());
    if (!granted) return std::nullopt;
    stamp_acquired(*granted, config, clock());
    return lock_handle(*this, std::move(*granted));
}

void lock_provider::release_record(const lock_record& live, timestamp now) {
    do_unlock(lease{live.name, live.locked_by, live.locked_at, live.lock_until, now, live.fencing_token});
}

std::chrono::milliseconds lock_provider::remaining_minimum_hold(const lease& held) const {
    return shedlock::remaining_minimum_hold(held, clock());
}

void lock_provider::set_error_handler(lock_error_handler handler) { error_handler_ = std::move(handler); }

void lock_provider::report_error(const std::string& name, const std::exception& e) noexcept {
    detail::report_release_failure(error_handler_, name, e);
}

namespace detail {

void report_release_failure(const lock_error_handler& handler, const std::string& name, const std::exception& e) noexcept {
    try {
        if (handler) {
            handler(name, e);
            return;
        }
        std::cerr << "shedlock: releasing lock \"" << name << "\" failed: " << e.what()
                  << " (the lock expires at its lock_until)\n";
    } catch (...) {
        // An error handler that throws must not escape a destructor.
    }
}

}  // namespace detail

}  // namespace shedlock
