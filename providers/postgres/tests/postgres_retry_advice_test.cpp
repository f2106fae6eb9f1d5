// Retry advice against the real server: a session the server ended while it idled fails safe
// before anything is sent, and the release, the run-record append and the claim completion run
// again on a new connection; an append whose answer was lost after the server applied it is in
// doubt, reported as such ("may have been applied"), and not run again; a completion (which may
// run twice) is run again and settled.
#include "postgres_connection.hpp"  // the provider's own session, to see one statement's advice
#include "postgres_test_server.hpp"
#include "reply_dropping_proxy.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_idempotency_store.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/postgres_run_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_retry_test {

namespace test_server = shedlock::test::postgres_server;
using shedlock::lock_configuration;
using shedlock::parse_provider_uri;
using shedlock::retry_advice;
using shedlock::run_outcome;
using shedlock::run_record;
using shedlock::storage_category;
using shedlock::storage_error;
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
    for (int i = 0; i < 250; ++i) {
        const auto left = killer.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()", {pattern});
        if (left.rows.at(0).at(0) == std::optional<std::string>("0")) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the goodbye reaches the idle socket
}

/// `uri` with its port replaced by `port`.
std::string through_port(std::string uri, int from, int port) {
    const std::string old = ":" + std::to_string(from) + "/";
    const auto at = uri.find(old);
    REQUIRE(at != std::string::npos);
    return uri.replace(at, old.size(), ":" + std::to_string(port) + "/");
}

}  // namespace pg_retry_test

using namespace pg_retry_test;  // NOLINT: the test cases below only

TEST_CASE("postgres retry advice: a session ended while idle fails safe before its statement is sent",
          "[postgres][retry]") {
    session victim(server_options());
    const auto pid = victim.execute("SELECT pg_backend_pid()", {}).rows.at(0).at(0).value();
    session killer(server_options());
    killer.execute("SELECT pg_terminate_backend($1::int)", {std::int64_t{std::stoll(pid)}});
    for (int i = 0; i < 250; ++i) {
        const auto left = killer.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int", {std::int64_t{std::stoll(pid)}});
        if (left.rows.at(0).at(0) == std::optional<std::string>("0")) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    try {
        victim.execute("SELECT 1", {});
        FAIL("a terminated session answered");
    } catch (const storage_error& e) {
        INFO(e.what());
        CHECK(e.category() == storage_category::unavailable);
        CHECK(e.advice() == retry_advice::safe);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("was not sent"));
    }
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

TEST_CASE("postgres retry advice: an append whose answer was lost is in doubt and reported, never stored twice",
          "[postgres][retry]") {
    const std::string runs = unique("doubt_runs"), claims = unique("doubt_claims");
    const int server_port = parse_provider_uri(test_server::uri()).port.value_or(5432);
    shedlock::test::reply_dropping_proxy proxy(static_cast<std::uint16_t>(server_port));
    // sslmode=disable: the proxy must see the statement (the values travel in its Bind).
    const std::string proxied_uri = through_port(test_server::uri(), server_port, proxy.port()) + "?sslmode=disable";
    auto direct_options =
        postgres_run_options::from_uri(parse_provider_uri(test_server::uri() + "?create_schema=true&runs_table=" + runs));
    auto proxied_options = postgres_run_options::from_uri(parse_provider_uri(proxied_uri + "&runs_table=" + runs));
    auto direct = shedlock::providers::make_postgres_run_store(direct_options);
    auto proxied = shedlock::providers::make_postgres_run_store(proxied_options);

    const std::string marker = "lost-answer-" + std::to_string(::getpid());
    run_record record{"doubt-task", "doubt-lock", "test:1", {}, {}, {}, run_outcome::succeeded, 1, marker, {}, false};
    proxy.arm(marker);
    try {
        proxied->append(record);
        FAIL("the lost answer was not reported");
    } catch (const storage_error& e) {
        INFO(e.what());
        CHECK(proxy.fired());
        CHECK(e.advice() == retry_advice::in_doubt);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("may have been applied"));
    }
    const auto stored = direct->last_runs("doubt-task", 10);
    REQUIRE(stored.size() == 1);  // applied once, and not run again
    CHECK(stored.front().message == marker);

    // A completion may run twice (owner-checked): in doubt, it is run again and settled.
    direct_options.table = claims;
    proxied_options.table = claims;
    auto direct_claims = shedlock::providers::make_postgres_idempotency_store(direct_options);
    auto proxied_claims = shedlock::providers::make_postgres_idempotency_store(proxied_options);
    const auto claimed = proxied_claims->claim("doubt-key", std::chrono::minutes(5));
    REQUIRE(claimed.claim);
    proxy.arm(claimed.claim->owner);  // the completion carries the owner token
    CHECK(proxied_claims->complete(*claimed.claim, "the result") == shedlock::finish_status::finished);
    CHECK(proxy.fired());
    const auto done = direct_claims->find("doubt-key");
    REQUIRE(done);
    CHECK(done->state == "done");
    CHECK(done->result == "the result");
}
