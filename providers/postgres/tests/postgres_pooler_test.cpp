// Through a real PgBouncer 1.18 with its default settings (providers/postgres/pgbouncer.sh, which
// server.sh starts beside the test server): transaction and session pooling, each also with one
// server connection for every client (database shedlock_one), and one told to ignore libpq's
// options. Before pooler=auto every connect through PgBouncer failed ("unsupported startup
// parameter: options") and, with the options ignored, named statements of two clients clashed on
// the shared server connection ("prepared statement \"shedlock_0\" already exists"; now they are
// named after their text and shared: postgres_prepared_test.cpp).
#include "postgres_async_helpers.hpp"
#include "postgres_pooler.hpp"
#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace shedlock;
using providers::postgres_options;
using Catch::Matchers::Contains;

namespace {

std::string pooled_uri(const std::string& variable) {
    return test::required_env(variable, "providers/postgres/server.sh (with pgbouncer installed)");
}

/// Every PgBouncer the test server has, with their default settings apart from the pool mode.
const std::vector<std::string> pooler_variables{
    "SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI",     "SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_ONE_URI",
    "SHEDLOCK_TEST_PGBOUNCER_SESSION_URI",         "SHEDLOCK_TEST_PGBOUNCER_SESSION_ONE_URI",
    "SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_IGNORING_ONE_URI"};

postgres_options options_of(const std::string& uri, const std::string& query = "") {
    return postgres_options::from_uri(parse_provider_uri(uri + "?create_schema=true&table=pooler_locks" + query));
}

/// `threads` threads, each with a provider (connections) of its own, each taking and releasing
/// `cycles` locks on names of its own: the number of cycles that succeeded (each thread's
/// failure, if any, fails the test case with its message).
int lock_cycles(const postgres_options& o, int threads, int cycles) {
    std::atomic<int> succeeded{0};
    std::vector<std::string> failures(static_cast<std::size_t>(threads));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            try {
                auto provider = providers::make_postgres_lock_provider(o);
                for (int i = 0; i < cycles; ++i) {
                    const lock_configuration config{"pooler-" + std::to_string(t) + "-" + std::to_string(i),
                                                    std::chrono::minutes(1), std::chrono::milliseconds(0)};
                    if (auto handle = provider->try_lock(config)) {
                        handle->unlock();
                        ++succeeded;
                    }
                }
            } catch (const std::exception& e) {
                failures[static_cast<std::size_t>(t)] = e.what();
            }
        });
    for (auto& w : workers) w.join();
    for (const auto& failure : failures)
        if (!failure.empty()) FAIL_CHECK(failure);
    return succeeded;
}

storage_error connect_error(const postgres_options& o) {
    try {
        (void)providers::make_postgres_lock_provider(o);
    } catch (const storage_error& e) {
        return e;
    }
    FAIL("connected");
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("postgres pooler: 40 lock cycles from 4 providers succeed through every PgBouncer (default settings)",
          "[postgres][pooler]") {
    for (const auto& variable : pooler_variables) {
        INFO(variable);
        // Session pooling on one server connection serves one client at a time: one thread there.
        const bool one_session = variable == "SHEDLOCK_TEST_PGBOUNCER_SESSION_ONE_URI";
        CHECK(lock_cycles(options_of(pooled_uri(variable)), one_session ? 1 : 4, one_session ? 40 : 10) == 40);
    }
}

TEST_CASE("postgres pooler: the async driver runs statements of two connections through one server connection",
          "[postgres][pooler][async]") {
    for (const auto& variable : pooler_variables) {
        if (variable == "SHEDLOCK_TEST_PGBOUNCER_SESSION_ONE_URI") continue;  // one client at a time there
        INFO(variable);
        boost::asio::io_context io;
        namespace pa = test::postgres_async;
        auto first = pa::connect(io, options_of(pooled_uri(variable)));
        auto second = pa::connect(io, options_of(pooled_uri(variable)));
        for (std::int64_t i = 0; i < 10; ++i) {
            // Alternating texts: a named statement of one connection would meet the other's.
            CHECK(pa::value_of(pa::execute(io, *first, "SELECT $1::bigint + 1", {i})) == std::to_string(i + 1));
            CHECK(pa::value_of(pa::execute(io, *second, "SELECT $1::bigint * 2", {i})) == std::to_string(i * 2));
        }
    }
}

TEST_CASE("postgres pooler: pooler=none through PgBouncer's defaults is refused as configuration, not unavailable",
          "[postgres][pooler]") {
    const auto e = connect_error(options_of(pooled_uri("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI"), "&pooler=none"));
    CHECK(e.category() == storage_category::misconfigured);
    CHECK(e.advice() == retry_advice::permanent);
    CHECK_THAT(e.what(), Contains("unsupported startup parameter") && Contains("pooler=auto") &&
                             !Contains(test::postgres_server::password));
}

TEST_CASE("postgres pooler: the probe tells a pooled connection by its PID and demands an ISO DateStyle", "[postgres][pooler][unit]") {
    using providers::detail::pooled_after_probe;
    auto o = options_of("postgresql://app@db/x");
    o.user = "odd\"user";
    auto probe = [](const char* pid, const char* style) {
        providers::sql::sql_result r;
        r.rows.push_back({std::string(pid), std::string(style)});
        return r;
    };
    CHECK_FALSE(pooled_after_probe(o, true, 42, probe("42", "ISO, MDY"), "shown"));
    CHECK(pooled_after_probe(o, true, 7, probe("42", "ISO, MDY"), "shown"));   // options ignored
    CHECK(pooled_after_probe(o, false, 42, probe("42", "ISO, DMY"), "shown"));  // options refused
    o.pooler = postgres_options::pooler_kind::pgbouncer;
    CHECK(pooled_after_probe(o, true, 42, probe("42", "ISO, MDY"), "shown"));
    try {
        (void)pooled_after_probe(o, false, 7, probe("42", "German, DMY"), "shown");
        FAIL("a German DateStyle passed");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::misconfigured);
        CHECK_THAT(e.what(), Contains("\"German, DMY\"") && Contains("ALTER ROLE \"odd\"\"user\" SET DateStyle = 'ISO, MDY'"));
    }
    o.pooler = postgres_options::pooler_kind::auto_detect;
    for (const char* style : {"German, DMY", "ISOX", "SQL, ISO"}) {
        INFO(style);
        CHECK_THROWS_AS(pooled_after_probe(o, true, 42, probe("42", style), "shown"), storage_error);  // direct too
    }
    try {
        (void)pooled_after_probe(o, false, 7, probe("4x2", "ISO"), "shown");
        FAIL("an unreadable PID passed");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::invalid_data);
    }
}

TEST_CASE("postgres pooler: PGDATESTYLE in the environment is refused before anything is written", "[postgres][pooler]") {
    // libpq sends PGDATESTYLE as a startup parameter, which outranks the DateStyle in `options`:
    // the times read back were German, the acquisition already committed (a lock held for its
    // whole lease by a run that then failed). The probe now refuses the connection first.
    const std::string direct = test::required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh");
    const auto o = postgres_options::from_uri(parse_provider_uri(direct + "?create_schema=true&table=pooler_datestyle"));
    (void)providers::make_postgres_lock_provider(o);  // the table, created with ISO times
    ::setenv("PGDATESTYLE", "German", 1);
    const auto e = connect_error(o);
    ::unsetenv("PGDATESTYLE");
    CHECK(e.category() == storage_category::misconfigured);
    CHECK_THAT(e.what(), Contains("\"German, DMY\"") && Contains("unset PGDATESTYLE") && Contains("nothing was written"));
    auto provider = providers::make_postgres_lock_provider(o);
    CHECK(inspect(*provider).list_locks().empty());
}

TEST_CASE("postgres pooler: PGOPTIONS in the environment does not reach a pooler", "[postgres][pooler]") {
    // Without our options the connection string said nothing of options, and libpq sent
    // PGOPTIONS instead: PgBouncer refused it ("unsupported startup parameter: options").
    ::setenv("PGOPTIONS", "-c search_path=public", 1);
    const int cycles = lock_cycles(options_of(pooled_uri("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI")), 1, 2);
    ::unsetenv("PGOPTIONS");
    CHECK(cycles == 2);
}

TEST_CASE("postgres pooler: the topology names the pooler and warns of statement_timeout 0 behind it", "[postgres][pooler]") {
    const auto joined = [](const std::vector<topology_note>& notes) {
        std::string text;
        for (const auto& n : notes) text += (n.weakens ? "[warn] " : "[ok] ") + n.text + "\n";
        return text;
    };
    auto pooled = providers::make_postgres_lock_provider(options_of(pooled_uri("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI")));
    const std::string through = joined(inspect(*pooled).topology());
    CHECK_THAT(through, Contains("[ok] pooler: detected") && Contains("[warn] statement_timeout: 0 behind a pooler") &&
                            Contains("replication:"));
    const std::string direct_uri = test::required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh");
    auto direct = providers::make_postgres_lock_provider(options_of(direct_uri));
    const std::string direct_text = joined(inspect(*direct).topology());
    CHECK_THAT(direct_text, Contains("[ok] pooler: none detected") && !Contains("statement_timeout"));
}

TEST_CASE("postgres pooler: a failed probe keeps the pooler's own words, safe to retry", "[postgres][pooler][unit]") {
    // Seen in chaos_postgres_pgbouncer: after the server behind PgBouncer restarted, PgBouncer
    // refused new clients for server_login_retry, and the probe's error said only "got no answer".
    const std::string shown = "postgresql://app:***@db:6432/x";
    const storage_error lost(storage_category::unavailable, retry_advice::in_doubt,
                             "PostgreSQL " + shown + ": ERROR:  pooler error: server login has been failing, try again "
                             "later (server_login_retry) [SQLSTATE 08P01]; " + may_have_been_applied);
    const auto e = providers::detail::probe_failure(lost, shown);
    CHECK(e.advice() == retry_advice::safe);
    CHECK(e.category() == storage_category::unavailable);
    CHECK_THAT(e.what(), Contains("server login has been failing") && Contains("nothing was written") &&
                             Contains("server_login_retry)?") && !Contains(may_have_been_applied));
    const storage_error refused(storage_category::misconfigured, retry_advice::permanent, "refused as it is");
    CHECK(std::string(providers::detail::probe_failure(refused, shown).what()) == "refused as it is");
}

TEST_CASE("postgres pooler: a bad pooler= value names it and the choices", "[postgres][pooler][unit]") {
    try {
        (void)options_of("postgresql://app@db/x", "&pooler=pgpool");
        FAIL("pooler=pgpool passed");
    } catch (const configuration_error& e) {
        CHECK_THAT(e.what(), Contains("pooler=\"pgpool\"") && Contains("auto, none or pgbouncer"));
    }
}
