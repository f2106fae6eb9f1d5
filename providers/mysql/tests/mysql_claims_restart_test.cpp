// Claims, states and fences survive a restart of the real server (it is stopped and started again
// on the same data: runs alone, in the serial program).
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "server_env.hpp"
#include "sql_claims_backend.hpp"

#include <shedlock/providers/mysql_idempotency_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;

TEST_CASE("mysql idempotency store: claims survive a server restart", "[mysql][idempotency][restart]") {
    const auto uri = test::required_env("SHEDLOCK_TEST_MYSQL_URI", "providers/mysql/server.sh");
    // Nothing to drop: the table name is unique to this process and the scratch database is thrown away.
    test::sql_claims_backend<mysql_run_options> backend(
        "mysql", mysql_run_options::from_uri(parse_provider_uri(uri)),
        [](const mysql_run_options& o, const shedlock::clock& c) { return make_mysql_idempotency_store(o, c); },
        [](const std::string&) {});
    conformance::check_claims_survive_restart(backend, [] {
        test::control_server("SHEDLOCK_TEST_MARIADB", "halt");
        test::control_server("SHEDLOCK_TEST_MARIADB", "resume");
    });
}
