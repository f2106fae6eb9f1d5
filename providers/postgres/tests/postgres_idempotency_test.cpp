// The PostgreSQL idempotency store on the real test server: the idempotency conformance suite
// (each backend on a claims table of its own) and the claims table's DDL.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "sql_claims_backend.hpp"
#include "postgres_test_server.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_idempotency_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace {

using postgres_claims_backend = test::sql_claims_backend<postgres_run_options>;

std::unique_ptr<postgres_claims_backend> make_postgres_claims_backend() {
    return std::make_unique<postgres_claims_backend>(
        "postgres", postgres_run_options::from_uri(parse_provider_uri(test::postgres_server::uri())),
        [](const postgres_run_options& o, const shedlock::clock& c) { return make_postgres_idempotency_store(o, c); },
        test::postgres_server::exec);
}

/// Terminates this process's connections to the server (as `pg_terminate_backend` by an operator
/// or a restart would), from a connection of its own, and waits until they are closed.
void terminate_own_connections() {
    const int port = postgres_options::from_uri(parse_provider_uri(test::postgres_server::uri())).port;
    const auto ports = test::tcp_client_ports(::getpid(), port);
    REQUIRE_FALSE(ports.empty());
    test::postgres_server::exec("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE client_port IN (" +
                                test::port_list(ports) + ") AND client_addr = inet_client_addr() AND pid <> pg_backend_pid()");
    REQUIRE(test::wait_until_closed(::getpid(), port, ports));
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<idempotency_backend> make_idempotency_backend() { return make_postgres_claims_backend(); }

}  // namespace shedlock::conformance

TEST_CASE("postgres idempotency store: a missing table prints the DDL", "[postgres][idempotency]") {
    auto o = postgres_run_options::from_uri(parse_provider_uri(test::postgres_server::uri()));
    o.table = "claims_missing_" + std::to_string(::getpid());
    test::postgres_server::exec("DROP TABLE IF EXISTS " + o.table);
    CHECK_THROWS_WITH(make_postgres_idempotency_store(o),
                      Contains("claims table \"" + o.table + "\" does not exist") &&
                          Contains("CREATE TABLE IF NOT EXISTS \"" + o.table + "\"") && Contains("PRIMARY KEY (kind, name)"));
}

TEST_CASE("postgres idempotency store: complete and fail after pg_terminate_backend are recorded",
          "[postgres][idempotency]") {
    auto backend = make_postgres_claims_backend();
    conformance::check_finish_after_connections_killed(*backend, terminate_own_connections);
}
