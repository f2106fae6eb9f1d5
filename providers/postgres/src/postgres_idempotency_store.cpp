#include "postgres_connection.hpp"

#include <shedlock/providers/postgres_idempotency_store.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_idempotency_store> make_postgres_idempotency_store(const postgres_run_options& options,
                                                                            const shedlock::clock& clock) {
    auto factory = [server = options.server]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::postgres_connection>(server);
    };
    return std::make_unique<sql::sql_idempotency_store>(
        make_postgres_dialect(), std::move(factory),
        sql::sql_idempotency_options{options.table, options.create_schema_if_missing, options.pool_size, options.pool_wait, options.pool},
        clock);
}

}  // namespace shedlock::providers
