// sqlite:FILE — the SQLite provider in the provider registry.
#include <shedlock/providers/sql/sql_registration.hpp>
#include <shedlock/providers/sqlite_idempotency_store.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>
#include <shedlock/providers/sqlite_schemes.hpp>

namespace shedlock::providers {

void register_sqlite_provider(provider_registry& registry) {
    registry.add(sql::sql_backend<sqlite_options, sqlite_run_options>(
        "sqlite", sqlite_schemes(), make_sqlite_lock_provider, make_sqlite_run_store, make_sqlite_dialect,
        [](const sqlite_run_options& o, const shedlock::clock& c) { return make_sqlite_idempotency_store(o, c); },
        sqlite_connections));
}

}  // namespace shedlock::providers
