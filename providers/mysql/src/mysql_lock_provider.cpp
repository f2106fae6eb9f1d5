#include "mysql_connection.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

namespace shedlock::providers {

std::unique_ptr<sql::sql_lock_provider> make_mysql_lock_provider(const mysql_options& options,
                                                                 const shedlock::clock& clock) {
    auto factory = [options]() -> std::unique_ptr<sql::sql_connection> {
        return std::make_unique<detail::mysql_connection>(options);
    };
    return std::make_unique<sql::sql_lock_provider>(make_mysql_dialect(), std::move(factory), options, clock);
}

}  // namespace shedlock::providers
