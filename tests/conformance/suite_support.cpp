#include "suite_support.hpp"

#include "async/async_interface.hpp"

#include <unistd.h>

#include <atomic>
#include <thread>

namespace shedlock::conformance {

backend& current_backend() {
    // The blocking provider, or its asynchronous service behind the same interface
    // (SHEDLOCK_CONFORMANCE_INTERFACE): then every case runs through the token API.
    static std::unique_ptr<backend> instance = with_interface(make_backend(), interface_from_env());
    return *instance;
}

// A server-clock backend still measures lock_at_least_for with the client clock, so it gets the
// real one; the frozen manual clock would make every minimum hold last forever.
fixture::fixture()
    : provider_(current_backend().make_provider(
          current_backend().honours_injected_clock() ? static_cast<const shedlock::clock&>(clock_)
                                                      : system_clock::instance())) {}

void fixture::pass(std::chrono::milliseconds d) {
    if (current_backend().honours_injected_clock()) clock_.advance(d);
    else std::this_thread::sleep_for(d);
}

std::string fixture::unique_name(const std::string& base) {
    static std::atomic<int> counter{0};
    static const auto start = std::chrono::steady_clock::now().time_since_epoch().count() % 1000000;
    return "conf:" + std::to_string(::getpid()) + ":" + std::to_string(start) + ":" + std::to_string(counter++) + ":" +
           base;
}

std::chrono::milliseconds fixture::lease(int steps) const {
    // One "step" is the unit the tests reason in: 1 minute on the injected clock, 250 ms of
    // real time against a server clock (long enough to dominate a loopback round trip, and the
    // stalls of a loaded or sanitizer-instrumented machine).
    const auto step = current_backend().honours_injected_clock() ? std::chrono::milliseconds{60'000}
                                                                 : std::chrono::milliseconds{250};
    return step * steps;
}

}  // namespace shedlock::conformance
