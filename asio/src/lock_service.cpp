#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/detail/claim_checks.hpp>
#include <shedlock/detail/release_failure.hpp>

namespace shedlock::asio {

void lock_service::report_error(const std::string& name, const std::exception& e) noexcept {
    shedlock::detail::report_release_failure(error_handler_, name, e);
}

namespace detail {

std::exception_ptr check_claim_arguments(const std::string& key, std::chrono::milliseconds claim_for) {
    try {
        shedlock::detail::validate_claim(key, claim_for);
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

std::exception_ptr check_finish_arguments(const idempotency_claim& claim, const std::string& state,
                                          const std::string& text) {
    try {
        // fail() keeps a long message cut, as idempotency_store::fail does; complete() refuses it.
        if (state == claim_state::done) shedlock::detail::validate_completion(claim.key, text);
        else validate_claim_key(claim.key);
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

}  // namespace detail
}  // namespace shedlock::asio
