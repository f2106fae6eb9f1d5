#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

#include <iostream>

namespace shedlock::asio {

void lock_service::report_error(const std::string& name, const std::exception& e) noexcept {
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

namespace detail {

std::exception_ptr check_claim_arguments(const std::string& key, std::chrono::milliseconds claim_for) {
    try {
        validate_claim_key(key);
        if (claim_for.count() <= 0)
            throw configuration_error("claim_for " + format_duration(claim_for) + " of idempotency key \"" + key +
                                      "\" must be positive; give the longest the work may take, e.g. PT10M");
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

std::exception_ptr check_finish_arguments(const idempotency_claim& claim, const std::string& state,
                                          const std::string& text) {
    try {
        validate_claim_key(claim.key);
        if (state == claim_state::done && text.size() > max_claim_result_bytes)
            throw configuration_error("result of \"" + claim.key + "\" has " + std::to_string(text.size()) +
                                      " bytes; at most " + std::to_string(max_claim_result_bytes) +
                                      " are kept with a claim, store large results elsewhere and keep a reference");
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

}  // namespace detail
}  // namespace shedlock::asio
