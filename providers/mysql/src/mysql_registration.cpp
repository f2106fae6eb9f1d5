// mysql:// (alias mariadb://) — the MySQL/MariaDB provider in the provider registry.
#include <shedlock/providers/mysql_idempotency_store.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/mysql_run_store.hpp>
#include <shedlock/providers/mysql_schemes.hpp>
#include <shedlock/providers/sql/sql_registration.hpp>

namespace shedlock::providers {

void register_mysql_provider(provider_registry& registry) {
    registry.add(sql::sql_backend<mysql_options, mysql_run_options>(
        "mysql", mysql_schemes(), make_mysql_lock_provider, make_mysql_run_store, make_mysql_dialect,
        [](const mysql_run_options& o, const shedlock::clock& c) { return make_mysql_idempotency_store(o, c); },
        mysql_connections));
}

}  // namespace shedlock::providers
