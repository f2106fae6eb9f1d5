#include "sqlite_connection.hpp"

#include <shedlock/providers/sqlite_lock_provider.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_lock_provider> make_sqlite_lock_provider(const sqlite_options& options,
                                                                  const shedlock::clock& clock) {
    auto factory = sqlite_connections(options);
    return std::make_unique<sql::sql_lock_provider>(make_sqlite_dialect(), std::move(factory), options, clock);
}

sql::connection_factory sqlite_connections(const sqlite_options& options) {
    return [options]() -> std::unique_ptr<sql::sql_connection> { return std::make_unique<detail::sqlite_connection>(options); };
}

}  // namespace shedlock::providers
