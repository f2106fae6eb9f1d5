// A build without the asynchronous interface (no Boost): the conformance programs run the
// blocking interface only, and refuse a request for another.
#include "async_interface.hpp"

#include <shedlock/error.hpp>

#include <cstdlib>

namespace shedlock::conformance {

interface_kind interface_from_env() {
    const char* value = std::getenv("SHEDLOCK_CONFORMANCE_INTERFACE");
    const std::string v = value ? value : "";
    if (v.empty() || v == "blocking") return interface_kind::blocking;
    throw configuration_error("SHEDLOCK_CONFORMANCE_INTERFACE=\"" + v +
                              "\": this build has no asynchronous interface (SHEDLOCK_BUILD_ASIO is off); "
                              "unset it or build with Boost >= 1.74");
}

std::string to_string(interface_kind kind) { return kind == interface_kind::blocking ? "blocking" : "asynchronous"; }

std::unique_ptr<backend> with_interface(std::unique_ptr<backend> inner, interface_kind) { return inner; }

}  // namespace shedlock::conformance
