#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers::sql {

void read_sql_uri_options(uri_options& options, sql_lock_options& out) {
    if (auto table = options.text("table")) {
        (void)table_name(*table);  // validate now, so the URI is rejected before any connection
        out.table = *table;
    }
    if (auto runs = options.text("runs_table")) (void)table_name(*runs);  // for the run store
    if (auto claims = options.text("claims_table")) (void)table_name(*claims);  // for the idempotency store
    if (auto columns = options.text("columns")) out.columns = lock_columns::parse(*columns);
    if (auto v = options.flag("upper_case")) out.upper_case = *v;
    if (auto v = options.flag("use_db_time")) out.use_db_time = *v;
    if (auto v = options.flag("create_schema")) out.create_schema_if_missing = *v;
    if (auto v = options.integer("pool_size", 1, 256)) out.pool_size = static_cast<std::size_t>(*v);
}

void read_sql_run_uri_options(const provider_uri& uri, const sql_lock_options& lock, sql_run_options& out) {
    const auto runs = uri.query.find("runs_table");
    out.table = runs == uri.query.end() ? sql_run_options{}.table : runs->second;
    out.create_schema_if_missing = lock.create_schema_if_missing;
}

void require_scheme(const provider_uri& uri, std::initializer_list<const char*> accepted) {
    std::string listed;
    for (const char* scheme : accepted) {
        if (uri.scheme == scheme) return;
        listed += (listed.empty() ? "" : ", ") + std::string(scheme) + ":";
    }
    throw configuration_error("provider URI \"" + uri.redacted() + "\" has scheme \"" + uri.scheme +
                              "\"; this provider accepts " + listed);
}

}  // namespace shedlock::providers::sql
