#include <shedlock/providers/sql/sql_dialect.hpp>

namespace shedlock::providers::sql {

// table_name and lock_columns admit letters, digits and '_' only, so no identifier ever holds a
// quote to escape.
std::string sql_dialect::quote_exact(const std::string& identifier) const { return "\"" + identifier + "\""; }

std::string sql_dialect::least(const std::string& a, const std::string& b) const {
    return "LEAST(" + a + ", " + b + ")";
}

std::string sql_dialect::sql_name(const table_name& table) const {
    return table.schema() ? quote(*table.schema()) + "." + quote(table.table()) : quote(table.table());
}

namespace {

/// The columns list_locks and probe read, in the order sql_lock_provider reads them.
std::string record_columns(const quoted_lock_table& q, const statement_options& options) {
    return q.name + ", " + q.locked_by + ", " + q.locked_at + ", " + q.lock_until +
           (options.fencing ? ", " + q.fencing_token : std::string());
}

}  // namespace

std::string sql_dialect::create_lock_table_sql(const lock_table& table, const lock_column_types& types) const {
    const auto q = quoted(table);
    return "CREATE TABLE IF NOT EXISTS " + q.table + " (\n  " + q.name + " " + types.name + " NOT NULL PRIMARY KEY,\n  " +
           q.lock_until + " " + types.time + " NOT NULL,\n  " + q.locked_at + " " + types.time + " NOT NULL,\n  " +
           q.locked_by + " VARCHAR(255) NOT NULL,\n  " + q.fencing_token + " BIGINT NOT NULL DEFAULT 0\n)" +
           types.table_suffix + ";";
}

statement sql_dialect::list(const lock_table& table, const statement_options& options) const {
    const auto q = quoted(table);
    return {"SELECT " + record_columns(q, options) + " FROM " + q.table + " ORDER BY " + q.name, {}};
}

statement sql_dialect::delete_record(const lock_table& table) const {
    const auto q = quoted(table);
    return {"DELETE FROM " + q.table + " WHERE " + q.name + " = ?", {slot::name}};
}

statement sql_dialect::delete_expired_record(const lock_table& table) const {
    const auto q = quoted(table);
    return {"DELETE FROM " + q.table + " WHERE " + q.name + " = ? AND " + q.lock_until + " <= ?", {slot::name, slot::now}};
}

std::optional<run_statement_set> sql_dialect::run_set(const table_name&) const { return std::nullopt; }

std::optional<claim_statement_set> sql_dialect::claim_set(const table_name&) const { return std::nullopt; }

}  // namespace shedlock::providers::sql
