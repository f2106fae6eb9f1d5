#include <shedlock/backend_session.hpp>
#include <shedlock/error.hpp>

namespace shedlock {

backend_session::backend_session(std::string backend_name, std::string display, session_parts parts)
    : backend_name_(std::move(backend_name)), display_(std::move(display)), parts_(std::move(parts)) {}

std::unique_ptr<lock_provider> backend_session::make_locks() const {
    if (!parts_.locks)
        throw configuration_error("provider URI \"" + display_ + "\": " + backend_name_ + " has no lock provider");
    return parts_.locks();
}

std::unique_ptr<run_store> backend_session::make_runs() const {
    if (!parts_.runs)
        throw configuration_error("run records for \"" + display_ + "\": " + backend_name_ +
                                  " keeps no run records in this build; keep them in another store "
                                  "(give a run-store URI of another backend)");
    return parts_.runs();
}

std::unique_ptr<idempotency_store> backend_session::make_claims() const {
    if (!parts_.claims)
        throw configuration_error("idempotency claims for \"" + display_ + "\": " + backend_name_ +
                                  " keeps no claims in this build; use another backend for them");
    return parts_.claims();
}

std::shared_ptr<lock_provider> backend_session::share_locks() {
    const std::lock_guard guard(mutex_);
    if (!locks_) locks_ = make_locks();
    return locks_;
}

std::shared_ptr<run_store> backend_session::share_runs() {
    const std::lock_guard guard(mutex_);
    if (!runs_) runs_ = make_runs();
    return runs_;
}

std::shared_ptr<idempotency_store> backend_session::share_claims() {
    const std::lock_guard guard(mutex_);
    if (!claims_) claims_ = make_claims();
    return claims_;
}

}  // namespace shedlock
