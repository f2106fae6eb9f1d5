#pragma once
/// \file
/// What one lock operation binds and how its answer reads, shared by the blocking
/// sql_lock_provider and the asynchronous SQL lock service: the two run the same statements and
/// must read them the same way.

#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/providers/sql/known_lock_names.hpp>
#include <shedlock/providers/sql/lock_statement_set.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>
#include <shedlock/time.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::sql {

/// Everything a statement may bind, computed once per call. Name and owner are views of the
/// caller's strings: bind() copies each once, into the parameter that carries it.
struct slot_values {
    std::string_view name;
    std::string_view owner;
    timestamp now{};
    timestamp lock_until{};
    timestamp minimum_hold_until{};
    std::chrono::milliseconds at_most{0};
    std::chrono::milliseconds remaining_minimum_hold{0};
};

/// The parameters of `stmt` from `v`, in its slot order.
std::vector<sql_param> bind(const statement& stmt, const slot_values& v);

/// The values of an acquisition of `config` by `owner` at `now`.
slot_values acquire_values(const lock_configuration& config, const std::string& owner, timestamp now);
/// The lease an acquire statement's `result` granted; empty when the lock was live.
std::optional<lease> read_acquired(const sql_result& result, acquire_result reports, bool fencing,
                                   const lock_configuration& config, const std::string& owner, const slot_values& v);

/// The statement that acquires `name`: `existing` (the plain UPDATE) while `known` trusts that
/// its record exists at `now`, else the full `acquire`.
const statement& acquire_statement(const statement& acquire, const std::optional<statement>& existing,
                                   const known_lock_names& known, const std::string& name,
                                   known_lock_names::time_point now);

/// An acquire's failure that says a value exceeded its column's type, explained: the fencing
/// column holds no next token, which no retry mends.
struct fencing_overflow {
    std::string marker;  ///< sql_dialect::out_of_range_marker() (empty: nothing is explained)
    std::string advice;  ///< appended to the message: the column, its table and the ALTER TABLE
    /// `failure`, or a storage_error (misconfigured, permanent) with the advice when it is a
    /// storage_error whose message carries the marker.
    std::exception_ptr explain(std::exception_ptr failure) const;
};

/// The values of a release of `held` at `now` with `remaining` minimum hold (remaining_minimum_hold).
slot_values unlock_values(const lease& held, timestamp now, std::chrono::milliseconds remaining);
/// The release statement for `held`: capped at the stored lock_until, unless its minimum hold
/// outlasts its lease.
const statement& release_statement(const lock_statement_set& statements, const lease& held);

/// The values of an extension of `held` by `at_most` at `now`.
slot_values extend_values(const lease& held, timestamp now, std::chrono::milliseconds at_most);
/// The extended lease an extend statement's `result` reports; empty when no longer the owner.
std::optional<lease> read_extended(const sql_result& result, acquire_result reports, const lease& held,
                                   const slot_values& v, std::chrono::milliseconds minimum_hold);

/// The column `i` of `row` as a time; `fallback` when absent or NULL.
timestamp column_time(const std::vector<std::optional<std::string>>& row, std::size_t i, timestamp fallback);

}  // namespace shedlock::providers::sql
