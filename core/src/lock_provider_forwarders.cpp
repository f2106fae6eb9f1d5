// TRANSITIONAL (issue 22): lock_provider's former inspection calls, forwarding to its
// lock_inspector. Removed once every caller uses inspect(provider).

#include <shedlock/error.hpp>
#include <shedlock/lock_provider.hpp>

namespace shedlock {

std::vector<lock_record> lock_provider::list_locks() { return inspect(*this).list_locks(); }

bool lock_provider::force_release(const std::string& name) { return inspect(*this).force_release(name); }

void lock_provider::delete_records(const std::vector<std::string>& names) {
    if (!inspector()) throw unsupported_operation_error("this lock provider cannot delete lock records");
    inspector()->delete_records(names);
}

std::size_t lock_provider::delete_expired_records(const std::vector<std::string>& names, timestamp expired_by) {
    if (!inspector()) throw unsupported_operation_error("this lock provider cannot delete expired lock records");
    return inspector()->delete_expired_records(names, expired_by);
}

std::optional<timestamp> lock_provider::server_time() {
    return inspector() ? inspector()->server_time() : std::nullopt;
}

timestamp lock_provider::lock_time_now() { return inspector() ? inspector()->lock_time_now() : clock().now(); }

std::string lock_provider::record_table() const {
    auto* found = const_cast<lock_provider*>(this)->inspector();
    return found ? found->record_table() : std::string{};
}

}  // namespace shedlock
