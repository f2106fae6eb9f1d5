#include "mysql_connection.hpp"

#include <shedlock/providers/mysql_idempotency_store.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_idempotency_store> make_mysql_idempotency_store(const mysql_run_options& options,
                                                                            const shedlock::clock& clock) {
    auto factory = [server = options.server]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::mysql_connection>(server);
    };
    return std::make_unique<sql::sql_idempotency_store>(
        make_mysql_dialect(), std::move(factory),
        sql::sql_idempotency_options{options.table, options.create_schema_if_missing, options.pool_size, options.pool_wait, options.pool},
        clock);
}

}  // namespace shedlock::providers
