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
        case storage_category::other: return "other";
    }
    return "other";
}

}  // namespace shedlock
