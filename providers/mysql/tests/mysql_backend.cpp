// The conformance suite against a real MariaDB/MySQL server (SHEDLOCK_TEST_MYSQL_URI); mode
// client_time or db_time (the server's clock inside every statement), or mapped / upper_case
// (ShedLock's own DDL under other names, see mapped_table_modes.hpp). Each mode has its own table.
#include "conformance_backend.hpp"
#include "mysql_test_server.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

#if SHEDLOCK_TEST_ASYNC_DRIVER
#include <sql_native_service.hpp>

#include <shedlock/providers/mysql_async.hpp>
#endif

namespace shedlock::conformance {

std::unique_ptr<backend> make_backend() {
    // ShedLock's documented MySQL DDL (TIMESTAMP(3) columns), renamed, with the one change
    // docs/sql-providers.md asks for: the name VARBINARY, so names compare byte for byte.
    // MariaDB's IF NOT EXISTS does not race: it only warns.
    const renamed_ddl ddl{
        "CREATE TABLE IF NOT EXISTS conformance_mapped(job VARBINARY(256) NOT NULL, until_ts TIMESTAMP(3) NOT NULL, "
        "at_ts TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), by_host VARCHAR(255) NOT NULL, "
        "fence_no BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (job))",
        "CREATE TABLE IF NOT EXISTS CONFORMANCE_UPPER(NAME VARBINARY(256) NOT NULL, LOCK_UNTIL TIMESTAMP(3) NOT NULL, "
        "LOCKED_AT TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), LOCKED_BY VARCHAR(255) NOT NULL, PRIMARY KEY (NAME))",
        test::mysql_server::exec};
    std::unique_ptr<backend> blocking = std::make_unique<sql_server_backend<providers::mysql_options>>(
        "mysql", test::mysql_server::uri(),
        [](const providers::mysql_options& o, const shedlock::clock& c) { return providers::make_mysql_lock_provider(o, c); },
        ddl);
#if SHEDLOCK_TEST_ASYNC_DRIVER
    // The asynchronous runs (SHEDLOCK_CONFORMANCE_INTERFACE) on the non-blocking driver.
    const auto connect_to = providers::mysql_options::from_uri(parse_provider_uri(test::mysql_server::uri()));
    return with_native_service(std::move(blocking),
                               sql_native_service("mysql, non-blocking Connector/C on Asio",
                                                  providers::mysql_async_connections(connect_to)));
#else
    return blocking;
#endif
}

}  // namespace shedlock::conformance
