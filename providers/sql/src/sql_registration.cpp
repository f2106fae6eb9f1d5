#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_registration.hpp>

namespace shedlock::providers::sql {

std::string claims_table_from_uri(const provider_uri& uri) {
    const auto claims = uri.query.find("claims_table");
    return claims == uri.query.end() ? sql_idempotency_options{}.table : table_name(claims->second).qualified();
}

std::string schema_text(const sql_dialect& dialect, const lock_table& locks, const table_name& runs_table,
                        const table_name& claims_table) {
    std::string ddl = dialect.schema_sql(locks);
    try {
        for (const auto& statement : dialect.run_table_schema_sql(runs_table)) ddl += "\n\n" + statement + ";";
    } catch (const unsupported_operation_error&) {
        // a dialect without a run store: the lock table alone
    }
    try {
        for (const auto& statement : dialect.claims_table_schema_sql(claims_table)) ddl += "\n\n" + statement + ";";
    } catch (const unsupported_operation_error&) {
        // a dialect without an idempotency store
    }
    return ddl;
}

}  // namespace shedlock::providers::sql
