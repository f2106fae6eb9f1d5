#pragma once
/// \file
/// The lock statements of one lock table in one dialect, each checked against its slots.

#include <shedlock/providers/sql/sql_dialect.hpp>

#include <optional>

namespace shedlock::providers::sql {

/// Every statement sql_lock_provider runs on a lock table, built once for the table's shape
/// (options: fencing, db time). Building it checks each statement's placeholders against its
/// slots (check_placeholders), so a dialect whose statement binds a slot it never uses, or uses
/// a placeholder it binds no slot for, fails where it is made, in the dialect's own test.
struct lock_statement_set {
    /// Throws std::logic_error naming the statement whose placeholders do not match its slots.
    lock_statement_set(const sql_dialect& dialect, const lock_table& table, const statement_options& options);

    statement acquire;
    /// The plain UPDATE for a lock whose record exists (sql_dialect::acquire_existing), if any.
    std::optional<statement> acquire_existing;
    statement unlock;             ///< the release, capped at the stored lock_until
    statement unlock_past_lease;  ///< the uncapped release, for a minimum hold that outlasts its lease
    statement extend;
    statement list;
    statement delete_record;
    statement delete_expired_record;
};

}  // namespace shedlock::providers::sql
