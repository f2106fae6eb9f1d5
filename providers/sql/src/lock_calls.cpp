#include <shedlock/error.hpp>
#include <shedlock/lease_timing.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>

namespace shedlock::providers::sql {

std::vector<sql_param> bind(const statement& stmt, const slot_values& v) {
    std::vector<sql_param> params;
    params.reserve(stmt.slots.size());
    for (slot s : stmt.slots) {
        switch (s) {
            case slot::name: params.emplace_back(std::in_place_type<std::string>, v.name); break;
            case slot::owner: params.emplace_back(std::in_place_type<std::string>, v.owner); break;
            case slot::now: params.emplace_back(format_timestamp(v.now)); break;
            case slot::lock_until: params.emplace_back(format_timestamp(v.lock_until)); break;
            case slot::minimum_hold_until: params.emplace_back(format_timestamp(v.minimum_hold_until)); break;
            case slot::at_most_ms: params.emplace_back(std::int64_t{v.at_most.count()}); break;
            case slot::remaining_minimum_hold_ms:
                params.emplace_back(std::int64_t{v.remaining_minimum_hold.count()});
                break;
        }
    }
    return params;
}

timestamp column_time(const std::vector<std::optional<std::string>>& row, std::size_t i, timestamp fallback) {
    return i < row.size() && row[i] ? parse_timestamp(*row[i]) : fallback;
}

slot_values acquire_values(const lock_configuration& config, const std::string& owner, timestamp now) {
    return {config.name(), owner, now, now + config.lock_at_most_for(), {}, config.lock_at_most_for(), {}};
}

std::optional<lease> read_acquired(const sql_result& result, acquire_result reports, bool fencing,
                                   const lock_configuration& config, const std::string& owner, const slot_values& v) {
    lease granted{config.name(), owner, v.now, v.lock_until, v.now + config.lock_at_least_for(), std::nullopt};
    if (reports == acquire_result::affected_rows) {
        if (result.affected_rows <= 0) return std::nullopt;
        if (fencing) granted.fencing_token = result.last_insert_id;
        return granted;
    }
    if (result.rows.empty()) return std::nullopt;
    const auto& row = result.rows.front();
    granted.locked_at = column_time(row, 0, v.now);
    granted.lock_until = column_time(row, 1, v.lock_until);
    if (fencing && row.size() > 2 && row[2]) granted.fencing_token = std::stoll(*row[2]);
    return granted;
}

const statement& acquire_statement(const statement& acquire, const std::optional<statement>& existing,
                                   const known_lock_names& known, const std::string& name,
                                   known_lock_names::time_point now) {
    return existing && known.trusted(name, now) ? *existing : acquire;
}

std::exception_ptr fencing_overflow::explain(std::exception_ptr failure) const {
    if (marker.empty()) return failure;
    try {
        std::rethrow_exception(failure);
    } catch (const storage_error& e) {
        const std::string message = e.what();
        if (message.find(marker) == std::string::npos) return failure;
        return std::make_exception_ptr(
            storage_error(storage_category::misconfigured, retry_advice::permanent, message + advice));
    } catch (...) {
        return failure;
    }
}

slot_values unlock_values(const lease& held, timestamp now, std::chrono::milliseconds remaining) {
    // Relative to each clock's own now (the client's here, the server's in use_db_time
    // statements): a wall clock stepped since the acquisition changes neither.
    return {held.name, held.owner, now, {}, now + remaining, {}, remaining};
}

const statement& release_statement(const lock_statement_set& statements, const lease& held) {
    return minimum_hold_outlasts_lease(held) ? statements.unlock_past_lease : statements.unlock;
}

slot_values extend_values(const lease& held, timestamp now, std::chrono::milliseconds at_most) {
    return {held.name, held.owner, now, now + at_most, {}, at_most, {}};
}

std::optional<lease> read_extended(const sql_result& result, acquire_result reports, const lease& held,
                                   const slot_values& v, std::chrono::milliseconds minimum_hold) {
    const bool by_rows = reports == acquire_result::returning_row;
    if (by_rows ? result.rows.empty() : result.affected_rows <= 0) return std::nullopt;
    lease extended = held;
    extended.lock_until = by_rows ? column_time(result.rows.front(), 0, v.lock_until) : v.lock_until;
    extended.minimum_hold_until = v.now + minimum_hold;
    return extended;
}

}  // namespace shedlock::providers::sql
