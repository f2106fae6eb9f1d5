#include "mysql_connection.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_lock_provider> make_mysql_lock_provider(const mysql_options& options,
                                                                 const shedlock::clock& clock) {
    auto factory = mysql_connections(options);
    return std::make_unique<sql::sql_lock_provider>(make_mysql_dialect(), std::move(factory), options, clock);
}

sql::connection_factory mysql_connections(const mysql_options& options) {
    return [options]() -> std::unique_ptr<sql::sql_connection> { return std::make_unique<detail::mysql_connection>(options); };
}

}  // namespace shedlock::providers
