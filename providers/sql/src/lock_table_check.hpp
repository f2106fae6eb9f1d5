#pragma once
// The start-up judgement of a lock table: do the mapped columns exist, and can each play its
// role in the statements (one rule for every dialect; the dialect only describes the table).

#include <shedlock/providers/sql/sql_dialect.hpp>

#include <vector>

namespace shedlock::providers::sql {

/// The rows of a describe_lock_table query (column, type, unique_alone) as described columns.
std::vector<described_column> described_columns(const sql_result& result);

/// Throws storage_error(missing_schema) naming the column, what is wrong with it and the fix,
/// unless every mapped column exists and fits its role: name a text column that alone is the
/// primary key or a unique index, lock_until and locked_at time columns, locked_by text,
/// fencing_token an integer column. Only ShedLock's default fencing column may be absent (a
/// plain ShedLock table); the result says whether it is there, and whether it holds 64 bits.
/// `columns` is not empty (an empty description is a missing table, which the caller reports).
struct lock_columns_verdict {
    bool fencing = false;       ///< the fencing column exists
    bool wide_fencing = false;  ///< and holds 64-bit integers (column_kinds::integer_64)
};
lock_columns_verdict check_lock_columns(const sql_dialect& dialect, const lock_table& table,
                                        const std::vector<described_column>& columns);

}  // namespace shedlock::providers::sql
