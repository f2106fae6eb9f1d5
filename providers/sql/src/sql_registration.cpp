#include <shedlock/providers/sql/sql_registration.hpp>

namespace shedlock::providers::sql {

std::string claims_table_from_uri(const provider_uri& uri) {
    const auto claims = uri.query.find("claims_table");
    return claims == uri.query.end() ? sql_idempotency_options{}.table : table_name(claims->second).qualified();
}

std::string schema_text(const sql_dialect& dialect, const lock_table& locks, const table_name& runs_table,
                        const table_name& claims_table) {
    std::string ddl = dialect.schema_sql(locks);
    if (const auto runs = dialect.run_set(runs_table))
        for (const auto& statement : runs->schema()) ddl += "\n\n" + statement + ";";
    if (const auto claims = dialect.claim_set(claims_table))
        for (const auto& statement : claims->schema()) ddl += "\n\n" + statement + ";";
    return ddl;
}

}  // namespace shedlock::providers::sql
