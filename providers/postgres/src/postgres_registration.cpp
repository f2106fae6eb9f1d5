// postgresql:// (alias postgres://) — the PostgreSQL provider in the provider registry.
#include <shedlock/providers/postgres_idempotency_store.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/postgres_run_store.hpp>
#include <shedlock/providers/postgres_schemes.hpp>
#include <shedlock/providers/sql/sql_registration.hpp>

namespace shedlock::providers {

void register_postgres_provider(provider_registry& registry) {
    registry.add(sql::sql_backend<postgres_options, postgres_run_options>(
        "postgres", postgres_schemes(),
        [](const postgres_options& o, const shedlock::clock& c) { return make_postgres_lock_provider(o, c); },
        make_postgres_run_store, [] { return make_postgres_dialect(); },
        [](const postgres_run_options& o, const shedlock::clock& c) { return make_postgres_idempotency_store(o, c); },
        postgres_connections));
}

}  // namespace shedlock::providers
