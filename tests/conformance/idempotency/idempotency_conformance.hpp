#pragma once
// The idempotency-store conformance suite: one set of Catch2 test cases that every backend's
// test program links (whole archive) and must pass, so claim, complete, transition and fence
// mean the same everywhere. A program defines shedlock::conformance::make_idempotency_backend().

#include <shedlock/idempotency_store.hpp>

#include <functional>
#include <memory>
#include <string>

namespace shedlock::conformance {

/// One idempotency backend under test.
class idempotency_backend {
public:
    virtual ~idempotency_backend() = default;
    virtual std::string name() const = 0;
    /// A store on this backend's shared storage (one table or key prefix for the whole backend
    /// object, removed when it is destroyed), using `clock`. Called again in forked child
    /// processes: it must open new connections.
    virtual std::unique_ptr<idempotency_store> make_store(const shedlock::clock& clock) = 0;
    /// False for in-process storage (memory): the [processes] cases cannot apply. Such a backend
    /// registers its tests IN_PROCESS (cmake/shedlock_testing.cmake), which leaves them out;
    /// run by hand, they fail on this.
    virtual bool shared_across_processes() const { return true; }
};

/// Defined by each backend's test program.
std::unique_ptr<idempotency_backend> make_idempotency_backend();

// unique_claim_key() and check_claims_survive_restart(): idempotency_support.hpp.

}  // namespace shedlock::conformance
