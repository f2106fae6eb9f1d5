// The conformance suite against a real PostgreSQL server (SHEDLOCK_TEST_POSTGRES_URI); mode
// client_time or db_time (the server's clock inside every statement), or mapped / upper_case
// (ShedLock's own DDL under other names, see mapped_table_modes.hpp). Each mode has its own table.
#include "conformance_backend.hpp"
#include "postgres_test_server.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#if SHEDLOCK_TEST_ASYNC_DRIVER
#include <sql_native_service.hpp>

#include <shedlock/providers/postgres_async.hpp>
#endif

namespace shedlock::conformance {
namespace {

namespace server = test::postgres_server;

// ShedLock's documented PostgreSQL DDL (TIMESTAMP columns), renamed; the mapped table also has
// a fencing column under its own name.
renamed_ddl shedlock_ddl() {
    return {"CREATE TABLE IF NOT EXISTS conformance_mapped(job VARCHAR(64) NOT NULL, until_ts TIMESTAMP NOT NULL, "
            "at_ts TIMESTAMP NOT NULL, by_host VARCHAR(255) NOT NULL, fence_no BIGINT NOT NULL DEFAULT 0, "
            "PRIMARY KEY (job))",
            "CREATE TABLE IF NOT EXISTS \"CONFORMANCE_UPPER\"(\"NAME\" VARCHAR(64) NOT NULL, \"LOCK_UNTIL\" "
            "TIMESTAMP NOT NULL, \"LOCKED_AT\" TIMESTAMP NOT NULL, \"LOCKED_BY\" VARCHAR(255) NOT NULL, "
            "PRIMARY KEY (\"NAME\"))",
            [](const std::string& ddl) {
                try {
                    server::exec(ddl);
                } catch (const std::exception&) {
                    // Test programs of this mode start in parallel: IF NOT EXISTS can still lose a
                    // race on the catalog. The provider fails clearly if the table is really missing.
                }
            }};
}

}  // namespace

std::unique_ptr<backend> make_backend() {
    std::unique_ptr<backend> blocking = std::make_unique<sql_server_backend<providers::postgres_options>>(
        "postgres", server::uri(),
        [](const providers::postgres_options& o, const shedlock::clock& c) { return providers::make_postgres_lock_provider(o, c); },
        shedlock_ddl(), /*tokens_from_one=*/false);
#if SHEDLOCK_TEST_ASYNC_DRIVER
    // The asynchronous runs (SHEDLOCK_CONFORMANCE_INTERFACE) on the non-blocking driver.
    const auto connect_to = providers::postgres_options::from_uri(parse_provider_uri(server::uri()));
    return with_native_service(std::move(blocking),
                               sql_native_service("postgres, non-blocking libpq on Asio",
                                                  providers::postgres_async_connections(connect_to)));
#else
    return blocking;
#endif
}

}  // namespace shedlock::conformance
