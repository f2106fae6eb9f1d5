#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>

namespace shedlock::providers::sql {

statement sql_dialect::list(const table_name& table, const statement_options& options) const {
    return {"SELECT name, locked_by, locked_at, lock_until" + std::string(options.fencing ? ", fencing_token" : "") +
                " FROM " + table.qualified() + " ORDER BY name",
            {}};
}

statement sql_dialect::probe(const table_name& table, const statement_options& options) const {
    return {"SELECT name, lock_until, locked_at, locked_by" + std::string(options.fencing ? ", fencing_token" : "") +
                " FROM " + table.qualified() + " WHERE 1 = 0",
            {}};
}

statement sql_dialect::delete_record(const table_name& table) const {
    return {"DELETE FROM " + table.qualified() + " WHERE name = ?", {slot::name}};
}

std::vector<std::string> sql_dialect::run_table_schema_sql(const table_name&) const {
    throw unsupported_operation_error(name() + " has no run-record table yet; keep run records in another store");
}

run_statements sql_dialect::run_store_statements(const table_name&) const {
    throw unsupported_operation_error(name() + " has no run-record store yet; keep run records in another store");
}

}  // namespace shedlock::providers::sql
