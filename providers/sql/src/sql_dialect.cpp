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

}  // namespace shedlock::providers::sql
