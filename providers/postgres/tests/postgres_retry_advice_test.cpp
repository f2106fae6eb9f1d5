// Retry advice against the real server: a session the server ended while it idled fails safe
// before anything is sent, and the release, the run-record append and the claim completion run
// again on a new connection. The lost-answer case is shared: tests/sql_server/retry_advice_test.cpp.
#include "postgres_connection.hpp"  // the provider's own session, to see one statement's advice
#include "postgres_test_server.hpp"
#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_idempotency_store.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/postgres_run_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_retry_test {

namespace test_server = shedlock::test::postgres_server;
using shedlock::lock_configuration;
using shedlock::parse_provider_uri;
using shedlock::run_outcome;
using shedlock::run_record;
using shedlock::providers::postgres_options;
using shedlock::providers::postgres_run_options;
using session = shedlock::providers::detail::postgres_connection;

std::string unique(const std::string& what) { return "retry_" + what + "_" + std::to_string(::getpid()); }

postgres_options server_options(const std::string& query = "") {
    return postgres_options::from_uri(parse_provider_uri(test_server::uri() + query));
}

/// Ends every other session whose last statement named `table`, and waits until they are gone.
void terminate_sessions_of(const std::string& table) {
    session killer(server_options());
    const std::string pattern = "%" + table + "%";
    killer.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()",
                   {pattern});
    shedlock::test::sql_server::wait_until_gone([&] {
        const std::string count = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()";
        return killer.execute(count, {pattern}).rows.at(0).at(0);
    });
}

}  // namespace pg_retry_test

using namespace pg_retry_test;  // NOLINT: the test cases below only

TEST_CASE("postgres retry advice: each libpqxx failure's advice by whether the statement was sent", "[postgres][retry]") {
    const auto advice = [](const std::exception& e, bool sent) {
        try {
            shedlock::providers::detail::throw_postgres_error(e, "postgresql://test", sent);
        } catch (const storage_error& thrown) {
            return thrown.advice();
        }
        return retry_advice::permanent;
    };
    const pqxx::broken_connection lost("server closed the connection unexpectedly");
    CHECK(advice(lost, false) == retry_advice::safe);  // while connecting
    CHECK(advice(lost, true) == retry_advice::in_doubt);
    CHECK(advice(pqxx::in_doubt_error("COMMIT: connection lost"), true) == retry_advice::in_doubt);
    CHECK(advice(pqxx::sql_error("deadlock detected", "UPDATE", "40P01"), true) == retry_advice::safe);
    CHECK(advice(pqxx::sql_error("canceling statement due to statement timeout", "UPDATE", "57014"), true) ==
          retry_advice::safe);
    CHECK(advice(pqxx::sql_error("terminating connection due to administrator command", "UPDATE", "57P01"), true) ==
          retry_advice::in_doubt);
    CHECK(advice(pqxx::sql_error("relation does not exist", "UPDATE", "42P01"), true) == retry_advice::permanent);
    CHECK(advice(pqxx::broken_connection("password authentication failed for user"), false) == retry_advice::permanent);
}

TEST_CASE("postgres retry advice: a session ended while idle fails safe before its statement is sent",
          "[postgres][retry]") {
    session victim(server_options());
    const auto pid = victim.execute("SELECT pg_backend_pid()", {}).rows.at(0).at(0).value();
    session killer(server_options());
    killer.execute("SELECT pg_terminate_backend($1::int)", {std::int64_t{std::stoll(pid)}});
    shedlock::test::sql_server::wait_until_gone([&] {
        return killer.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int", {std::int64_t{std::stoll(pid)}})
            .rows.at(0)
            .at(0);
    });
    shedlock::test::sql_server::check_fails_unsent([&] { victim.execute("SELECT 1", {}); });
}

TEST_CASE("postgres retry advice: release, append and completion on a pooled session the server ended run again",
          "[postgres][retry]") {
    const std::string locks = unique("locks"), runs = unique("runs"), claims = unique("claims");
    auto provider = shedlock::providers::make_postgres_lock_provider(server_options("?create_schema=true&table=" + locks));
    auto run_options = postgres_run_options::from_uri(parse_provider_uri(test_server::uri() + "?create_schema=true&runs_table=" + runs));
    auto store = shedlock::providers::make_postgres_run_store(run_options);
    run_options.table = claims;
    auto claims_store = shedlock::providers::make_postgres_idempotency_store(run_options);

    auto handle = provider->try_lock(lock_configuration("retry-release", std::chrono::minutes(5)));
    REQUIRE(handle);
    const auto claimed = claims_store->claim("retry-claim", std::chrono::minutes(5));
    REQUIRE(claimed.claim);
    run_record first{"retry-task", "retry-release", "test:1", {}, {}, {}, run_outcome::succeeded, 1, "first", {}, false};
    store->append(first);

    // Every pooled session now idles; the server ends them (as a restart or an idle timeout would).
    terminate_sessions_of(locks);
    terminate_sessions_of(runs);
    terminate_sessions_of(claims);

    CHECK_NOTHROW(handle->unlock());
    CHECK(provider->try_lock(lock_configuration("retry-release", std::chrono::minutes(5))));  // the release was applied
    run_record second = first;
    second.message = "second";
    CHECK_NOTHROW(store->append(second));
    const auto stored = store->last_runs("retry-task", 10);
    REQUIRE(stored.size() == 2);  // each record once
    CHECK(stored.front().message == "second");
    CHECK(claims_store->complete(*claimed.claim, "ok") == shedlock::finish_status::finished);
    CHECK(claims_store->find("retry-claim")->state == "done");
}

// "read-only server" in the name keeps it out of the PgBouncer lanes (lanes.sh): shedlock_ro has
// no login through the poolers.
TEST_CASE("postgres retry advice: a read-only server that is a primary (the role's default) is misconfigured, never held",
          "[postgres][retry][failover]") {
    // A session that may not write on a server that is not in recovery (a role whose transactions
    // are read-only) refuses the acquire with 25006. A standby's 25006 is an outage to wait out
    // (the failover tests: exit 69); this one no retry mends: misconfigured (the CLI exits 78),
    // naming the setting and the ALTER ROLE. With target_session_attrs=read-write libpq passes
    // such a server over at connect, with the words it uses for a standby too ("session is
    // read-only"): unavailable, the hint naming both causes.
    const std::string locks = unique("readonly");
    test_server::exec("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'shedlock_ro') THEN "
                      "CREATE ROLE shedlock_ro LOGIN PASSWORD 'shedlock-test-pw'; END IF; END $$");
    test_server::exec("ALTER ROLE shedlock_ro SET default_transaction_read_only = on");
    (void)shedlock::providers::make_postgres_lock_provider(server_options("?create_schema=true&table=" + locks));
    test_server::exec("GRANT SELECT, INSERT, UPDATE, DELETE ON " + locks + " TO shedlock_ro");
    // What a lock attempt as shedlock_ro ends with (it must not succeed).
    auto failure_as_read_only_role = [&](const std::string& target) -> storage_error {
        auto o = server_options("?table=" + locks + target);
        o.user = "shedlock_ro";
        try {
            auto provider = shedlock::providers::make_postgres_lock_provider(o);
            (void)provider->try_lock(lock_configuration("readonly", std::chrono::minutes(5)));
        } catch (const storage_error& e) {
            return e;
        }
        FAIL("a read-only session took the lock (" << target << ")");
        throw std::logic_error("unreachable");
    };
    for (const std::string target : {"", "&target_session_attrs=primary"}) {
        INFO("target: " << target);
        const auto e = failure_as_read_only_role(target);
        CHECK(e.category() == shedlock::storage_category::misconfigured);
        CHECK(e.advice() == shedlock::retry_advice::permanent);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("default_transaction_read_only = off") &&
                                 Catch::Matchers::Contains("read-only"));
        CHECK_THAT(e.what(), !Catch::Matchers::Contains(test_server::password));
    }
    const auto e = failure_as_read_only_role("&target_session_attrs=read-write");
    CHECK(e.category() == shedlock::storage_category::unavailable);
    CHECK(e.advice() == shedlock::retry_advice::safe);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("session is read-only") &&
                             Catch::Matchers::Contains("default_transaction_read_only = off"));
}
