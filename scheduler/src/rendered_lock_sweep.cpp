// Expired lock records of names rendered from {date}/{datetime} templates: a name whose time has
// passed is never locked again, so without this sweep its record stays forever (one per second
// for a per-second name). See scheduler_options::rendered_lock_retention.
#include "lock_name_template.hpp"
#include "scheduler_impl.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>

namespace shedlock {
namespace {

/// Sweeps at most this often: each sweep lists the whole lock table.
constexpr std::chrono::minutes longest_sweep_interval{1};

}  // namespace

std::vector<std::string> scheduler::impl::expired_rendered_names(const std::vector<lock_record>& records,
                                                                 timestamp cutoff) const {
    std::vector<std::string> names;
    for (const auto& r : records) {
        if (!r.unreadable.empty() || r.lock_until > cutoff) continue;
        for (const auto& t : tasks) {
            if (!t->task.renders_by_time) continue;
            const auto& def = t->task.definition;
            const std::string& name_template = def.lock_name.empty() ? def.name : def.lock_name;
            if (!detail::is_rendered_from(name_template, r.name, options.env)) continue;
            std::lock_guard lock(t->recent_mutex);
            if (r.name != t->lock_name) names.push_back(r.name);  // never the current firing's
            break;
        }
    }
    return names;
}

void scheduler::impl::sweep_rendered_locks() {
    if (!options.rendered_lock_retention || sweep_unsupported.load()) return;
    const auto retention = *options.rendered_lock_retention;
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    auto due = next_sweep_ns.load();
    const auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::min<std::chrono::milliseconds>(retention, longest_sweep_interval));
    // One worker sweeps; the others go on with their firings.
    if (now < due || !next_sweep_ns.compare_exchange_strong(due, now + interval.count())) return;
    try {
        auto& records_of = inspect(locks);
        const auto records = records_of.list_locks();
        const auto cutoff = records_of.lock_time_now() - retention;  // after listing, as the status page does
        const auto names = expired_rendered_names(records, cutoff);
        if (!names.empty()) records_of.delete_expired_records(names, cutoff);
    } catch (const unsupported_operation_error& e) {
        sweep_unsupported = true;
        warn(std::string("expired records of rendered lock names are kept: ") + e.what());
    } catch (const std::exception& e) {
        warn(std::string("could not delete expired records of rendered lock names (tried again later): ") + e.what());
    }
}

}  // namespace shedlock
