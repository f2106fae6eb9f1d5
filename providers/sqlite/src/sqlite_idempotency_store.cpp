#include "sqlite_connection.hpp"

#include <shedlock/providers/sqlite_idempotency_store.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_idempotency_store> make_sqlite_idempotency_store(const sqlite_run_options& options,
                                                                          const shedlock::clock& clock) {
    sqlite_options connection_options;
    connection_options.path = options.path;
    connection_options.busy_timeout = options.busy_timeout;
    connection_options.durability = options.durability;
    auto factory = [connection_options]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::sqlite_connection>(connection_options);
    };
    return std::make_unique<sql::sql_idempotency_store>(
        make_sqlite_dialect(), std::move(factory),
        sql::sql_idempotency_options{options.table, options.create_schema_if_missing, options.pool_size, options.pool_wait, options.pool},
        clock);
}

}  // namespace shedlock::providers
