#include "claims_marker.hpp"

#include <shedlock/error.hpp>

namespace shedlock::asio::detail {
namespace {

[[noreturn]] void refuse() {
    throw unsupported_operation_error(
        "the asio scheduler claims through its claim_service; its validation stand-in stores nothing");
}

}  // namespace

claims_marker::claims_marker() : idempotency_store(system_clock::instance()) {}

claim_result claims_marker::do_claim(const std::string&, std::chrono::milliseconds, std::optional<std::int64_t>,
                                     const std::string&) {
    refuse();
}
finish_status claims_marker::do_finish(const idempotency_claim&, std::string_view, const std::string&) { refuse(); }
bool claims_marker::do_transition(const std::string&, const std::string&, const std::string&) { refuse(); }
bool claims_marker::do_fence(const std::string&, std::int64_t) { refuse(); }
std::vector<claim_record> claims_marker::do_list(const std::optional<std::string>&) { refuse(); }
bool claims_marker::do_reset(const std::string&) { refuse(); }
std::size_t claims_marker::do_purge(timestamp) { refuse(); }

}  // namespace shedlock::asio::detail
