#include "postgres_connection.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_lock_provider> make_postgres_lock_provider(const postgres_options& options,
                                                                    const shedlock::clock& clock) {
    auto factory = postgres_connections(options);
    return std::make_unique<sql::sql_lock_provider>(make_postgres_dialect(options.async_unlock), std::move(factory),
                                                    options, clock);
}

sql::connection_factory postgres_connections(const postgres_options& options) {
    return [options]() -> std::unique_ptr<sql::sql_connection> { return std::make_unique<detail::postgres_connection>(options); };
}

}  // namespace shedlock::providers
