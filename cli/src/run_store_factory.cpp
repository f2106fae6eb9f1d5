#include "run_store_factory.hpp"

#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>
#ifdef SHEDLOCK_CLI_WITH_POSTGRES
#include <shedlock/providers/postgres_run_store.hpp>
#endif
#ifdef SHEDLOCK_CLI_WITH_MYSQL
#include <shedlock/providers/mysql_run_store.hpp>
#endif
#ifdef SHEDLOCK_CLI_WITH_REDIS
#include <shedlock/providers/redis_run_store.hpp>
#endif

namespace shedlock::cli {
namespace {

/// Every store's options read the lock backend's URI (same keys, plus runs_table= for SQL).
template <typename Options, typename Make>
std::unique_ptr<run_store> open_sql(const provider_uri& uri, const run_store_request& request, Make make) {
    auto options = Options::from_uri(uri);
    options.create_schema_if_missing = options.create_schema_if_missing || request.create_schema;
    options.retention = request.retention;
    return make(options);
}

}  // namespace

std::unique_ptr<run_store> open_run_store(const std::string& text, const run_store_request& request) {
    const provider_uri uri = parse_provider_uri(text);
    if (uri.scheme == "memory") return std::make_unique<memory_run_store>(request.retention);
    if (uri.scheme == "sqlite") return open_sql<providers::sqlite_run_options>(uri, request, providers::make_sqlite_run_store);
#ifdef SHEDLOCK_CLI_WITH_POSTGRES
    if (uri.scheme == "postgresql" || uri.scheme == "postgres")
        return open_sql<providers::postgres_run_options>(uri, request, providers::make_postgres_run_store);
#endif
#ifdef SHEDLOCK_CLI_WITH_MYSQL
    if (uri.scheme == "mysql" || uri.scheme == "mariadb")
        return open_sql<providers::mysql_run_options>(uri, request, providers::make_mysql_run_store);
#endif
#ifdef SHEDLOCK_CLI_WITH_REDIS
    if (uri.scheme == "redis") {
        auto options = providers::redis_run_options::from_uri(uri);
        options.retention = request.retention;
        return providers::make_redis_run_store(options);
    }
#endif
    throw configuration_error("run records for \"" + uri.redacted() + "\": scheme \"" + uri.scheme +
                              "\" has no run store in this build");
}

}  // namespace shedlock::cli
