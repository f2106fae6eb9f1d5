// Statements named after their text (postgres_prepared.hpp) on a real server and through real
// PgBouncers: both courses (Bind first; Parse+Bind in one pipeline) on a server connection that
// has the name and on one that lacks it, the name stable across builds, and clients that share
// a server connection using each other's statements instead of clashing.
#include "postgres_async_helpers.hpp"
#include "postgres_prepared.hpp"
#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <libpq-fe.h>
#include <pqxx/except>

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace shedlock;
using providers::postgres_options;
using providers::detail::run_prepared_blocking;
using providers::detail::statement_course;
using providers::detail::statement_guess;
using providers::detail::statement_name_for;
using Catch::Matchers::Contains;

namespace {

struct pg_free {
    void operator()(PGconn* c) const noexcept { PQfinish(c); }
};
using raw_connection = std::unique_ptr<PGconn, pg_free>;

/// A libpq connection of the test's own to `uri` (a postgresql:// URI libpq reads itself).
raw_connection connect_raw(const std::string& uri) {
    raw_connection c(PQconnectdb(uri.c_str()));
    REQUIRE(c);
    INFO(PQerrorMessage(c.get()));
    REQUIRE(PQstatus(c.get()) == CONNECTION_OK);
    return c;
}

/// How many statements of `name` this server session holds (pg_prepared_statements).
int prepared_count(PGconn* c, const std::string& name) {
    const char* values[] = {name.c_str()};
    std::unique_ptr<PGresult, decltype(&PQclear)> r(
        PQexecParams(c, "SELECT count(*) FROM pg_prepared_statements WHERE name = $1", 1, nullptr, values, nullptr,
                     nullptr, 0),
        &PQclear);
    REQUIRE(PQresultStatus(r.get()) == PGRES_TUPLES_OK);
    return std::stoi(PQgetvalue(r.get(), 0, 0));
}

std::string direct_uri() { return test::required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh"); }

/// One call with a guess of its own: `bind_first` starts with Bind (a pooled connection's guess
/// for a new text), else with Parse+Bind in one pipeline (a direct connection's).
providers::sql::sql_result run_fresh(PGconn* c, const std::string& sql, const std::vector<std::string>& values,
                                     bool bind_first) {
    statement_guess guess(bind_first);
    return run_prepared_blocking(c, sql, values, guess);
}

std::string value_of(const providers::sql::sql_result& r) {
    REQUIRE(r.rows.size() == 1);
    REQUIRE(r.rows[0].size() == 1);
    return r.rows[0][0].value_or("NULL");
}

}  // namespace

TEST_CASE("postgres prepared: a statement's name is its text's, the same in every build", "[postgres][prepared][unit]") {
    // Pinned: clients of two builds share a pooler's server connection and must agree on it.
    CHECK(statement_name_for("SELECT 1") == "shedlock_8_199e7bca63ea84f2");
    CHECK(statement_name_for("") == "shedlock_0_cbf29ce484222325");
    std::set<std::string> names;
    for (int i = 0; i < 20000; ++i) names.insert(statement_name_for("SELECT " + std::to_string(i)));
    CHECK(names.size() == 20000);
    CHECK(statement_name_for(std::string(100000, 'x')).size() <= 63);  // PostgreSQL's NAMEDATALEN - 1
}

TEST_CASE("postgres prepared: the guess of a course learns from what the server answered", "[postgres][prepared][unit]") {
    SECTION("a direct connection parses a new text and binds one it ran") {
        statement_guess guess(false);
        CHECK(guess.first_course("a") == statement_course::parse);
        guess.learn("a", statement_course::parse, "");
        CHECK(guess.first_course("a") == statement_course::bind);
        CHECK(guess.first_course("b") == statement_course::parse);
    }
    SECTION("behind a pooler a new text is bound first until a Bind missed, then parsed first") {
        statement_guess guess(true);
        CHECK(guess.first_course("a") == statement_course::bind);
        guess.learn("a", statement_course::bind, "26000");  // a fresh or reset server connection
        guess.learn("a", statement_course::parse, "");
        CHECK(guess.first_course("b") == statement_course::parse);
        guess.learn("b", statement_course::parse, "42P05");  // another client's: they outlive clients
        CHECK(guess.first_course("c") == statement_course::bind);
        CHECK(guess.first_course("a") == statement_course::bind);
    }
    SECTION("a pooler that loses statements between calls turns the connection to unnamed statements") {
        statement_guess guess(true);
        guess.learn("a", statement_course::parse, "");
        for (int miss = 1; miss < statement_guess::misses_before_unnamed; ++miss) {
            guess.learn("a", statement_course::bind, "26000");
            CHECK(guess.first_course("a").has_value());
        }
        guess.learn("a", statement_course::bind, "");  // a hit ends the run of misses
        for (int miss = 1; miss <= statement_guess::misses_before_unnamed; ++miss)
            guess.learn("a", statement_course::bind, "26000");
        CHECK_FALSE(guess.first_course("a").has_value());
        CHECK_FALSE(guess.first_course("z").has_value());
        statement_guess direct(false);  // never on a server: its misses mean a reconnect
        direct.learn("a", statement_course::parse, "");
        for (int miss = 0; miss < 5; ++miss) direct.learn("a", statement_course::bind, "26000");
        CHECK(direct.first_course("a").has_value());
    }
}

TEST_CASE("postgres prepared: statements lost after every call (a reset between transactions) end up unnamed",
          "[postgres][prepared]") {
    // What PgBouncer's server_reset_query_always does: DISCARD ALL after each transaction. Each
    // named call would then miss, parse and plan: after a few the connection runs unnamed.
    auto c = connect_raw(direct_uri());
    statement_guess guess(true);
    const std::string sql = "SELECT $1::bigint + 100 AS added";
    const std::string name = statement_name_for(sql);
    for (int call = 0; call < 8; ++call) {
        CHECK(value_of(run_prepared_blocking(c.get(), sql, {std::to_string(call)}, guess)) == std::to_string(call + 100));
        PQclear(PQexec(c.get(), "DEALLOCATE ALL"));
    }
    CHECK_FALSE(guess.first_course(sql).has_value());
    CHECK(value_of(run_prepared_blocking(c.get(), sql, {"1"}, guess)) == "101");
    CHECK(prepared_count(c.get(), name) == 0);  // the last call ran unnamed
}

TEST_CASE("postgres prepared: both courses run the statement once, on a session with and without the name",
          "[postgres][prepared]") {
    const std::string sql = "SELECT $1::bigint + 40 AS answer";
    const std::string name = statement_name_for(sql);
    SECTION("bind first on a session that lacks it: Parse+Bind in one pipeline, then Bind alone") {
        auto c = connect_raw(direct_uri());
        CHECK(value_of(run_fresh(c.get(), sql, {"2"}, true)) == "42");
        CHECK(prepared_count(c.get(), name) == 1);
        CHECK(value_of(run_fresh(c.get(), sql, {"3"}, true)) == "43");
        CHECK(prepared_count(c.get(), name) == 1);
    }
    SECTION("parse first on a session that has it (another client's): Bind alone after 42P05") {
        auto c = connect_raw(direct_uri());
        CHECK(value_of(run_fresh(c.get(), sql, {"1"}, false)) == "41");
        CHECK(value_of(run_fresh(c.get(), sql, {"5"}, false)) == "45");
        CHECK(prepared_count(c.get(), name) == 1);
        CHECK(PQtransactionStatus(c.get()) == PQTRANS_IDLE);
        CHECK(PQpipelineStatus(c.get()) == PQ_PIPELINE_OFF);
    }
}

TEST_CASE("postgres prepared: a statement the server refuses keeps its SQLSTATE on either course, and nothing runs twice",
          "[postgres][prepared]") {
    auto c = connect_raw(direct_uri());
    PQclear(PQexec(c.get(), "CREATE TEMP TABLE prepared_once (n bigint PRIMARY KEY)"));
    const std::string insert = "INSERT INTO prepared_once VALUES ($1::bigint)";
    CHECK(run_fresh(c.get(), insert, {"1"}, true).affected_rows == 1);
    for (const bool bind_first : {true, false}) {
        try {
            (void)run_fresh(c.get(), insert, {"1"}, bind_first);
            FAIL("a duplicate key was inserted");
        } catch (const pqxx::sql_error& e) {
            CHECK(e.sqlstate() == "23505");
        }
    }
    std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c.get(), "SELECT count(*) FROM prepared_once"), &PQclear);
    CHECK(std::string(PQgetvalue(r.get(), 0, 0)) == "1");
    CHECK(PQpipelineStatus(c.get()) == PQ_PIPELINE_OFF);
}

TEST_CASE("postgres prepared: a table changed under a prepared statement is prepared again, not refused forever",
          "[postgres][prepared]") {
    // ALTER COLUMN ... TYPE changes the statement's result type: the server answers every later
    // Bind of it on that session with 0A000 ("cached plan must not change result type"), and
    // behind a pooler that session serves every client. The course deallocates and parses again.
    auto c = connect_raw(direct_uri());
    PQclear(PQexec(c.get(), "CREATE TEMP TABLE prepared_changed (n integer)"));
    PQclear(PQexec(c.get(), "INSERT INTO prepared_changed VALUES (7)"));
    const std::string select = "SELECT n FROM prepared_changed WHERE n = $1::integer";
    CHECK(value_of(run_fresh(c.get(), select, {"7"}, false)) == "7");
    PQclear(PQexec(c.get(), "ALTER TABLE prepared_changed ALTER COLUMN n TYPE bigint"));
    for (const bool bind_first : {true, false}) {
        INFO("bind first: " << bind_first);
        CHECK(value_of(run_fresh(c.get(), select, {"7"}, bind_first)) == "7");
    }
    CHECK(prepared_count(c.get(), statement_name_for(select)) == 1);
    CHECK(PQpipelineStatus(c.get()) == PQ_PIPELINE_OFF);
}

TEST_CASE("postgres prepared: the async driver prepares again after the table changed under a statement",
          "[postgres][prepared][async]") {
    namespace pa = test::postgres_async;
    boost::asio::io_context io;
    auto connection = pa::connect(io, pa::options());
    const std::string table = "prepared_changed_" + std::to_string(::getpid());
    (void)pa::execute(io, *connection, "DROP TABLE IF EXISTS " + table, {});
    (void)pa::execute(io, *connection, "CREATE TABLE " + table + " (n integer)", {});
    (void)pa::execute(io, *connection, "INSERT INTO " + table + " VALUES (5)", {});
    const std::string select = "SELECT n FROM " + table + " WHERE n = $1::integer";
    CHECK(pa::value_of(pa::execute(io, *connection, select, {std::int64_t{5}})) == "5");
    (void)pa::execute(io, *connection, "ALTER TABLE " + table + " ALTER COLUMN n TYPE bigint", {});
    CHECK(pa::value_of(pa::execute(io, *connection, select, {std::int64_t{5}})) == "5");
    CHECK(pa::value_of(pa::execute(io, *connection, select, {std::int64_t{5}})) == "5");
    (void)pa::execute(io, *connection, "DROP TABLE " + table, {});
}

TEST_CASE("postgres prepared: pooler=none behind PgBouncer shares the one server connection without a clash",
          "[postgres][pooler][prepared]") {
    // Before, each client named its statements shedlock_0, shedlock_1, ...: on a server connection
    // that clients share, 39 of 40 runs failed with 42P05 "already exists" (ignoring options,
    // nothing tells a client it is pooled). Named after their text, one client's statement is the
    // next client's: all 40 cycles succeed, through one server connection, without the probe.
    const std::string uri = test::required_env("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_IGNORING_ONE_URI",
                                               "providers/postgres/server.sh (with pgbouncer installed)");
    const auto o = postgres_options::from_uri(
        parse_provider_uri(uri + "?create_schema=true&table=prepared_locks&pooler=none"));
    std::vector<std::unique_ptr<lock_provider>> clients;
    for (int i = 0; i < 4; ++i) clients.push_back(providers::make_postgres_lock_provider(o));
    int cycles = 0;
    for (int round = 0; round < 10; ++round)
        for (auto& client : clients)
            if (auto handle = client->try_lock({"prepared-" + std::to_string(round), std::chrono::minutes(1),
                                                std::chrono::milliseconds(0)})) {
                handle->unlock();
                ++cycles;
            }
    CHECK(cycles == 40);
}

TEST_CASE("postgres prepared: the async driver binds first behind a pooler and parses first on a server",
          "[postgres][prepared][async]") {
    namespace pa = test::postgres_async;
    boost::asio::io_context io;
    const std::string sql = "SELECT $1::bigint * 3 AS tripled";
    // A server: parse first (a direct connection's own guess), then bind.
    auto direct = pa::connect(io, pa::options());
    CHECK(pa::value_of(pa::execute(io, *direct, sql, {std::int64_t{5}})) == "15");
    CHECK(pa::value_of(pa::execute(io, *direct, sql, {std::int64_t{6}})) == "18");
    // One server connection that nothing tells them is pooled (options ignored, pooler=none):
    // the second connection parses first, meets the first one's statement (42P05) and binds.
    const std::string ignoring = test::required_env("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_IGNORING_ONE_URI",
                                                    "providers/postgres/server.sh (with pgbouncer installed)");
    const auto unaware = postgres_options::from_uri(parse_provider_uri(ignoring + "?pooler=none"));
    auto one = pa::connect(io, unaware);
    auto other = pa::connect(io, unaware);
    for (std::int64_t i = 0; i < 3; ++i) {
        CHECK(pa::value_of(pa::execute(io, *one, sql, {i})) == std::to_string(i * 3));
        CHECK(pa::value_of(pa::execute(io, *other, sql, {i + 7})) == std::to_string((i + 7) * 3));
    }
    // Through the transaction pooler's one server connection, two connections alternate: each
    // binds first and uses what the other prepared.
    const std::string shared = test::required_env("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_ONE_URI",
                                                  "providers/postgres/server.sh (with pgbouncer installed)");
    const auto pooled = postgres_options::from_uri(parse_provider_uri(shared));
    auto first = pa::connect(io, pooled);
    auto second = pa::connect(io, pooled);
    for (std::int64_t i = 0; i < 5; ++i) {
        CHECK(pa::value_of(pa::execute(io, *first, sql, {i})) == std::to_string(i * 3));
        CHECK(pa::value_of(pa::execute(io, *second, sql, {i + 1})) == std::to_string((i + 1) * 3));
    }
}
