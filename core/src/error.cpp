#include <shedlock/error.hpp>

namespace shedlock {

const char* to_string(storage_category category) noexcept {
    switch (category) {
        case storage_category::unavailable: return "unavailable";
        case storage_category::missing_schema: return "missing_schema";
        case storage_category::access_denied: return "access_denied";
        case storage_category::busy: return "busy";
        case storage_category::conflict: return "conflict";
        case storage_category::invalid_data: return "invalid_data";
        case storage_category::misconfigured: return "misconfigured";
        case storage_category::other: return "other";
    }
    return "other";
}

const char* to_string(retry_advice advice) noexcept {
    switch (advice) {
        case retry_advice::safe: return "safe to retry";
        case retry_advice::in_doubt: return "in doubt";
        case retry_advice::permanent: return "permanent";
    }
    return "permanent";
}

retry_advice default_retry_advice(storage_category category) noexcept {
    switch (category) {
        case storage_category::busy:
        case storage_category::conflict: return retry_advice::safe;
        case storage_category::unavailable: return retry_advice::in_doubt;
        default: return retry_advice::permanent;
    }
}

}  // namespace shedlock
