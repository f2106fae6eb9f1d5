#include <shedlock/providers/sql/store_statement_sets.hpp>

#include <utility>

namespace shedlock::providers::sql {

// The counts are the parameters sql_run_store and sql_idempotency_store bind (the lists at
// run_statements and claim_statements).
run_statement_set::run_statement_set(run_statements s, std::vector<std::string> schema, placeholder_style style)
    : statements_(std::move(s)), schema_(std::move(schema)) {
    const auto check = [style](const char* what, const std::string& sql, std::size_t bound) {
        check_placeholders(std::string("run-record ") + what, sql, bound, style);
    };
    check("insert", statements_.insert, 11);
    check("last_runs", statements_.last_runs, 2);
    check("tasks", statements_.tasks, 0);
    check("prune_count", statements_.prune_count, 2);
    check("prune_age", statements_.prune_age, 1);
    check("probe", statements_.probe, 0);
    check("last_runs_of_instance", statements_.last_runs_of_instance, 3);
}

claim_statement_set::claim_statement_set(claim_statements s, std::vector<std::string> schema, placeholder_style style)
    : statements_(std::move(s)), schema_(std::move(schema)) {
    const auto check = [style](const char* what, const std::string& sql, std::size_t bound) {
        check_placeholders(std::string("claims ") + what, sql, bound, style);
    };
    check("claim", statements_.claim, 5);
    check("finish", statements_.finish, 5);
    check("create", statements_.create, 4);
    check("transition", statements_.transition, 3);
    check("fence", statements_.fence, 4);
    check("list", statements_.list, 0);
    check("find", statements_.find, 1);
    check("reset", statements_.reset, 1);
    check("purge", statements_.purge, 1);
    check("probe", statements_.probe, 0);
}

}  // namespace shedlock::providers::sql
