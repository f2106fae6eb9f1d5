#include <shedlock/asio/error.hpp>
#include <shedlock/error.hpp>

#include <boost/system/system_error.hpp>

namespace shedlock::asio {
namespace {

class category final : public boost::system::error_category {
public:
    const char* name() const noexcept override { return "shedlock"; }
    std::string message(int value) const override {
        switch (static_cast<errc>(value)) {
            case errc::backend_unavailable: return "the backend failed and did not apply the request (safe to retry)";
            case errc::in_doubt: return may_have_been_applied;
            case errc::backend_error: return "the backend refused the request (a retry will not help)";
            case errc::invalid_argument: return "invalid argument";
            case errc::lock_state: return "the lock handle was already unlocked or extended";
            case errc::unsupported: return "the backend does not support this operation";
            case errc::shut_down: return "the service was shut down";
        }
        return "unknown shedlock error";
    }
};

errc code_of_advice(retry_advice advice) noexcept {
    switch (advice) {
        case retry_advice::safe: return errc::backend_unavailable;
        case retry_advice::in_doubt: return errc::in_doubt;
        case retry_advice::permanent: return errc::backend_error;
    }
    return errc::backend_error;
}

}  // namespace

const boost::system::error_category& error_category() noexcept {
    // Never destroyed: completions of releases still running during exit map their errors here.
    static const category* const instance = new category;
    return *instance;
}

error_code to_error_code(const std::exception_ptr& failure) noexcept {
    if (!failure) return {};
    try {
        std::rethrow_exception(failure);
    } catch (const storage_error& e) {
        return make_error_code(code_of_advice(e.advice()));
    } catch (const configuration_error&) {
        return make_error_code(errc::invalid_argument);
    } catch (const lock_state_error&) {
        return make_error_code(errc::lock_state);
    } catch (const unsupported_operation_error&) {
        return make_error_code(errc::unsupported);
    } catch (const boost::system::system_error& e) {
        return e.code();
    } catch (...) {
        return make_error_code(errc::backend_error);
    }
}

std::string failure_message(const std::exception_ptr& failure) {
    if (!failure) return {};
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown failure";
    }
}

}  // namespace shedlock::asio
