#pragma once
// Helpers shared by the conformance test files.

#include "conformance.hpp"

#include <shedlock/time.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace shedlock::conformance {

/// A provider plus a way to let time pass that works for client-clock and server-clock backends.
class fixture {
public:
    fixture();
    lock_provider& provider() { return *provider_; }
    /// The provider's lock_inspector (every backend under test has one).
    lock_inspector& inspector() { return inspect(*provider_); }
    /// Moves the injected clock, or sleeps when the backend uses a server clock.
    void pass(std::chrono::milliseconds d);
    /// A lock name unique to this process and call, so tests never see each other's records.
    static std::string unique_name(const std::string& base);
    /// A lease long enough for the step; short in real-time mode so expiry tests stay fast.
    std::chrono::milliseconds lease(int steps) const;
    manual_clock& clock() { return clock_; }

private:
    manual_clock clock_;
    std::unique_ptr<lock_provider> provider_;
};

}  // namespace shedlock::conformance
