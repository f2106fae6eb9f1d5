#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_registration.hpp>

namespace shedlock::providers::sql {

std::string schema_text(const sql_dialect& dialect, const table_name& lock_table, const table_name& runs_table) {
    std::string ddl = dialect.schema_sql(lock_table);
    try {
        for (const auto& statement : dialect.run_table_schema_sql(runs_table)) ddl += "\n\n" + statement + ";";
    } catch (const unsupported_operation_error&) {
        // a dialect without a run store: the lock table alone
    }
    return ddl;
}

}  // namespace shedlock::providers::sql
