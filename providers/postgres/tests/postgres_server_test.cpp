// PostgreSQL tests that watch the whole server, so they run alone (ctest RUN_SERIAL): the WAL
// position across refused acquires. Stop/start of the real server: tests/sql_server/restart.
#include "server_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <unistd.h>


using namespace shedlock;
using namespace shedlock::providers;
using std::chrono::milliseconds;

namespace {

postgres_options options_for(const std::string& table) {
    auto o = postgres_options::from_uri(
        parse_provider_uri(test::required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh")));
    o.table = table + "_" + std::to_string(::getpid());
    o.create_schema_if_missing = true;
    return o;
}

std::unique_ptr<pqxx::connection> raw_connection(const postgres_options& o) {
    return std::make_unique<pqxx::connection>("host=" + o.host + " port=" + std::to_string(o.port) +
                                              " dbname=" + o.database + " user=" + o.user +
                                              " password=" + o.password.value_or(""));
}

long long wal_lsn(pqxx::connection& c) {
    return pqxx::nontransaction(c).exec("SELECT pg_current_wal_lsn() - '0/0'")[0][0].as<long long>();
}

/// WAL bytes written while `fn` runs; the smallest of three runs, so a background write
/// (checkpointer, autovacuum) during one run does not decide the result.
template <typename Fn>
long long wal_bytes(pqxx::connection& c, Fn&& fn) {
    long long least = -1;
    for (int run = 0; run < 3; ++run) {
        const long long before = wal_lsn(c);
        fn();
        const long long written = wal_lsn(c) - before;
        if (least < 0 || written < least) least = written;
    }
    return least;
}

}  // namespace

TEST_CASE("postgres: a refused acquire writes no WAL", "[postgres][wal]") {
    for (bool db_time : {false, true}) {
        auto o = options_for("wal");
        o.use_db_time = db_time;
        auto provider = make_postgres_lock_provider(o);
        const lock_configuration config{"wal", std::chrono::minutes{5}};
        auto held = provider->try_lock(config);
        REQUIRE(held);
        auto raw = raw_connection(o);
        const long long refused = wal_bytes(*raw, [&] {
            for (int i = 0; i < 100; ++i) REQUIRE_FALSE(provider->try_lock(config));
        });
        INFO("db_time " << db_time);
        CHECK(refused == 0);

        // The classic single upsert, for contrast: its false WHERE still locks the row and writes WAL.
        const std::string classic = "INSERT INTO " + o.table +
                                    " (name, lock_until, locked_at, locked_by) VALUES ('wal', now(), now(), 'x') "
                                    "ON CONFLICT (name) DO UPDATE SET locked_by = 'x' WHERE " + o.table +
                                    ".lock_until <= now() AT TIME ZONE 'UTC'";
        const long long classic_bytes = wal_bytes(*raw, [&] {
            for (int i = 0; i < 100; ++i) pqxx::nontransaction(*raw).exec(classic);
        });
        CHECK(classic_bytes > 0);
    }
}
