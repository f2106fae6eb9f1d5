#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/lock_provider.hpp>

namespace shedlock {

bool lock_inspector::force_release(const std::string& name) {
    validate_lock_name(name);
    const auto records = list_locks();
    const timestamp now = lock_time_now();  // after the listing: a record freed before it is never "live"
    for (const auto& record : records) {
        if (record.name != name) continue;
        if (record.lock_until <= now) return false;
        do_force_release(record, now);
        return true;
    }
    return false;
}

void lock_inspector::delete_records(const std::vector<std::string>&) {
    throw unsupported_operation_error("this lock provider cannot delete lock records");
}

std::size_t lock_inspector::delete_expired_records(const std::vector<std::string>&, timestamp) {
    throw unsupported_operation_error("this lock provider cannot delete expired lock records");
}

lock_inspector& inspect(lock_provider& provider) {
    if (auto* found = provider.inspector()) return *found;
    throw unsupported_operation_error(
        "this lock provider cannot list or administer its lock records (it has no lock_inspector)");
}

}  // namespace shedlock
