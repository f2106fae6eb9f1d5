#pragma once
/// \file
/// The one interface every SQL backend's connection implements (SQLite, PostgreSQL, MariaDB).

#include <shedlock/lock_inspector.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shedlock::providers::sql {

/// A bound value: every value reaches the server as a parameter, never spliced into SQL text.
using sql_param = std::variant<std::int64_t, std::string>;

/// Rows as text (NULL = empty optional), plus what the server reported.
struct sql_result {
    std::vector<std::vector<std::optional<std::string>>> rows;
    std::int64_t affected_rows = 0;
    std::int64_t last_insert_id = 0;  ///< MySQL's LAST_INSERT_ID() after the statement; 0 elsewhere
};

/// One session with a database. Used by one thread at a time (the pool guarantees it).
///
/// Failure: `execute` throws storage_error. Category `unavailable` means the connection is
/// broken and must be discarded (the pool replaces it); any other category leaves it usable.
class sql_connection {
public:
    virtual ~sql_connection() = default;
    /// Runs one statement in its own transaction (autocommit) with positional parameters in
    /// the dialect's placeholder syntax. Implementations prepare each distinct text once.
    virtual sql_result execute(const std::string& sql, const std::vector<sql_param>& params) = 0;
    /// Runs `sql` as an asynchronous-commit statement where the backend supports it
    /// (PostgreSQL `SET LOCAL synchronous_commit = off`); default: same as execute.
    virtual sql_result execute_relaxed(const std::string& sql, const std::vector<sql_param>& params) {
        return execute(sql, params);
    }
    /// What this connection knows of what stands between it and the server, and of the server's
    /// replication (lock_inspector::topology); may run statements. Default: nothing.
    virtual std::vector<topology_note> topology() { return {}; }
};

}  // namespace shedlock::providers::sql
