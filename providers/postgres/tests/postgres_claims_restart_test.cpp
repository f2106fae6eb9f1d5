// Claims, states and fences survive a restart of the real server (it is stopped and started again
// on the same data: runs alone, in the serial program).
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "server_env.hpp"
#include "sql_claims_backend.hpp"

#include <shedlock/providers/postgres_idempotency_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;

TEST_CASE("postgres idempotency store: claims survive a server restart", "[postgres][idempotency][restart]") {
    const auto uri = test::required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh");
    // Nothing to drop: the table name is unique to this process and the scratch database is thrown away.
    test::sql_claims_backend<postgres_run_options> backend(
        "postgres", postgres_run_options::from_uri(parse_provider_uri(uri)),
        [](const postgres_run_options& o, const shedlock::clock& c) { return make_postgres_idempotency_store(o, c); },
        [](const std::string&) {});
    conformance::check_claims_survive_restart(backend, [] {
        test::control_server("SHEDLOCK_TEST_POSTGRES", "halt");
        test::control_server("SHEDLOCK_TEST_POSTGRES", "resume");
    });
}
