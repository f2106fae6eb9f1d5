#include <shedlock/error.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/owner_token.hpp>

#include <iostream>

namespace shedlock {

std::optional<lock_handle> lock_provider::try_lock(const lock_configuration& config) {
    auto granted = do_try_lock(config, make_owner_token());
    if (!granted) return std::nullopt;
    return lock_handle(*this, std::move(*granted));
}

void lock_provider::set_error_handler(lock_error_handler handler) { error_handler_ = std::move(handler); }

void lock_provider::report_error(const std::string& name, const std::exception& e) noexcept {
    try {
        if (error_handler_) {
            error_handler_(name, e);
            return;
        }
        std::cerr << "shedlock: releasing lock \"" << name << "\" failed: " << e.what()
                  << " (the lock expires at its lock_until)\n";
    } catch (...) {
        // An error handler that throws must not escape a destructor.
    }
}

}  // namespace shedlock
