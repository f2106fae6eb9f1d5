#pragma once
// Creating a missing table at start-up (create_schema_if_missing), safely when every instance
// of a service starts at once.

#include <shedlock/providers/sql/connection_pool.hpp>

#include <string>
#include <vector>

namespace shedlock::providers::sql {

/// Runs the DDL statements (each `... IF NOT EXISTS`) in order. Instances started together all
/// find the table missing and all create it; PostgreSQL checks for the table before inserting it
/// into its catalog, so the loser of that race gets a unique violation instead of a no-op. Once
/// the winner has committed, the same DDL is a no-op, so a failed run is repeated (3 runs in all)
/// unless the error says the server is gone or the user may not create tables.
void create_schema(connection_pool& pool, const std::vector<std::string>& ddl);

/// The ways to create a missing table, for its error: ". Create it (...):" before the DDL.
/// Names the URI option (`create_schema=true`) and the library option, which are spelled
/// differently (the message named only create_schema_if_missing, which no URI accepts).
std::string create_missing_table_advice();

}  // namespace shedlock::providers::sql
