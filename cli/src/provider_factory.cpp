#include "provider_factory.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>
#ifdef SHEDLOCK_CLI_WITH_POSTGRES
#include <shedlock/providers/postgres_lock_provider.hpp>
#endif
#ifdef SHEDLOCK_CLI_WITH_MYSQL
#include <shedlock/providers/mysql_lock_provider.hpp>
#endif
#ifdef SHEDLOCK_CLI_WITH_REDIS
#include <shedlock/providers/redis_lock_provider.hpp>
#endif

namespace shedlock::cli {
namespace {

/// Opens an SQL provider from its options type (each reads its own URI keys).
template <typename Options, typename Make>
void open_sql(const provider_uri& uri, const open_options& how, opened_provider& out, Make make) {
    auto options = Options::from_uri(uri);
    options.create_schema_if_missing = options.create_schema_if_missing || how.create_schema;
    auto provider = make(options, system_clock::instance());
    out.sql = provider.get();
    out.provider = std::move(provider);
}

[[noreturn]] void unsupported(const provider_uri& uri) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": scheme \"" + uri.scheme +
                              "\" is not supported by this build; use one of: " + supported_schemes());
}

bool is_postgres(const provider_uri& uri) { return uri.scheme == "postgresql" || uri.scheme == "postgres"; }
bool is_mysql(const provider_uri& uri) { return uri.scheme == "mysql" || uri.scheme == "mariadb"; }

}  // namespace

std::string supported_schemes() {
    std::string schemes = "memory:, sqlite:";
#ifdef SHEDLOCK_CLI_WITH_POSTGRES
    schemes += ", postgresql://";
#endif
#ifdef SHEDLOCK_CLI_WITH_MYSQL
    schemes += ", mysql://, mariadb://";
#endif
#ifdef SHEDLOCK_CLI_WITH_REDIS
    schemes += ", redis://";
#endif
    return schemes;
}

opened_provider open_provider(const std::string& text, const open_options& how) {
    const provider_uri uri = parse_provider_uri(text);
    opened_provider opened;
    opened.kind = uri.scheme;
    opened.display = uri.redacted();
    if (uri.scheme == "memory") {
        uri_options(uri).finish();
        opened.provider = std::make_unique<providers::memory_lock_provider>();
    } else if (uri.scheme == "sqlite") {
        open_sql<providers::sqlite_options>(uri, how, opened, providers::make_sqlite_lock_provider);
#ifdef SHEDLOCK_CLI_WITH_POSTGRES
    } else if (is_postgres(uri)) {
        open_sql<providers::postgres_options>(uri, how, opened, providers::make_postgres_lock_provider);
#endif
#ifdef SHEDLOCK_CLI_WITH_MYSQL
    } else if (is_mysql(uri)) {
        open_sql<providers::mysql_options>(uri, how, opened, providers::make_mysql_lock_provider);
#endif
#ifdef SHEDLOCK_CLI_WITH_REDIS
    } else if (uri.scheme == "redis") {
        opened.provider = providers::make_redis_lock_provider(providers::redis_options::from_uri(uri));
#endif
    } else {
        unsupported(uri);
    }
    return opened;
}

/// The lock table's DDL, then the run-record table's (where the dialect keeps run records).
std::string both_tables(const providers::sql::sql_dialect& dialect, const std::string& table, const provider_uri& uri) {
    std::string ddl = dialect.schema_sql(providers::sql::table_name(table));
    const std::string runs_table = uri.query.count("runs_table") ? uri.query.at("runs_table") : "shedlock_runs";
    try {
        for (const auto& statement : dialect.run_table_schema_sql(providers::sql::table_name(runs_table)))
            ddl += "\n\n" + statement + ";";
    } catch (const unsupported_operation_error&) {
    }
    return ddl;
}

std::string schema_for(const std::string& text) {
    const provider_uri uri = parse_provider_uri(text);
    if (uri.scheme == "memory") return "";
    if (uri.scheme == "sqlite") return both_tables(*providers::make_sqlite_dialect(), providers::sqlite_options::from_uri(uri).table, uri);
#ifdef SHEDLOCK_CLI_WITH_POSTGRES
    if (is_postgres(uri)) return both_tables(*providers::make_postgres_dialect(), providers::postgres_options::from_uri(uri).table, uri);
#endif
#ifdef SHEDLOCK_CLI_WITH_MYSQL
    if (is_mysql(uri)) return both_tables(*providers::make_mysql_dialect(), providers::mysql_options::from_uri(uri).table, uri);
#endif
#ifdef SHEDLOCK_CLI_WITH_REDIS
    if (uri.scheme == "redis") {
        (void)providers::redis_options::from_uri(uri);  // still reject bad options
        return "";
    }
#endif
    unsupported(uri);
}

}  // namespace shedlock::cli
