#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>

namespace shedlock::providers::sql {

// table_name admits letters, digits and '_' only, so no identifier ever holds a quote to escape.
std::string sql_dialect::quote(const std::string& identifier) const { return "\"" + identifier + "\""; }

std::string sql_dialect::least(const std::string& a, const std::string& b) const {
    return "LEAST(" + a + ", " + b + ")";
}

std::string sql_dialect::sql_name(const table_name& table) const {
    return table.schema() ? quote(*table.schema()) + "." + quote(table.table()) : quote(table.table());
}

statement sql_dialect::list(const table_name& table, const statement_options& options) const {
    return {"SELECT name, locked_by, locked_at, lock_until" + std::string(options.fencing ? ", fencing_token" : "") +
                " FROM " + sql_name(table) + " ORDER BY name",
            {}};
}

statement sql_dialect::probe(const table_name& table, const statement_options& options) const {
    return {"SELECT name, lock_until, locked_at, locked_by" + std::string(options.fencing ? ", fencing_token" : "") +
                " FROM " + sql_name(table) + " WHERE 1 = 0",
            {}};
}

statement sql_dialect::delete_record(const table_name& table) const {
    return {"DELETE FROM " + sql_name(table) + " WHERE name = ?", {slot::name}};
}

statement sql_dialect::delete_expired_record(const table_name& table) const {
    return {"DELETE FROM " + sql_name(table) + " WHERE name = ? AND lock_until <= ?", {slot::name, slot::now}};
}

std::vector<std::string> sql_dialect::run_table_schema_sql(const table_name&) const {
    throw unsupported_operation_error(name() + " has no run-record table yet; keep run records in another store");
}

run_statements sql_dialect::run_store_statements(const table_name&) const {
    throw unsupported_operation_error(name() + " has no run-record store yet; keep run records in another store");
}

std::vector<std::string> sql_dialect::claims_table_schema_sql(const table_name&) const {
    throw unsupported_operation_error(name() + " has no claims table yet; keep idempotency claims in another store");
}

claim_statements sql_dialect::idempotency_statements(const table_name&) const {
    throw unsupported_operation_error(name() + " has no idempotency store yet; keep claims in another store");
}

}  // namespace shedlock::providers::sql
