#pragma once
/// \file
/// The idempotency statements of the databases with `INSERT ... ON CONFLICT ... RETURNING`
/// (PostgreSQL, SQLite), which differ only in placeholder and cast syntax.

#include <shedlock/providers/sql/sql_dialect.hpp>

#include <functional>
#include <string>

namespace shedlock::providers::sql {

/// How a dialect writes parameter `n` (1-based) as each type.
struct upsert_syntax {
    std::function<std::string(int)> text;       ///< "$1" / "?1"
    std::function<std::string(int)> time;       ///< "$1::timestamp(3)" / "?1"
    std::function<std::string(int)> integer;    ///< "$1::bigint" / "?1"
    std::function<std::string(int)> opt_integer;  ///< text '' -> NULL, else a BIGINT
    std::string bytewise;                       ///< ORDER BY suffix that sorts bytewise ("COLLATE \\"C\\"")
};

/// Every claim statement for `table_sql` (already quoted) in that syntax.
claim_statements upsert_claim_statements(const std::string& table_sql, const upsert_syntax& syntax);

}  // namespace shedlock::providers::sql
