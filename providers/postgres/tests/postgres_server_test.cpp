// PostgreSQL tests that watch or disturb the whole server, so they run alone (ctest RUN_SERIAL):
// the WAL position across refused acquires, and stop/start of the real server.
#include "server_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <unistd.h>

#include <thread>

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

TEST_CASE("postgres: server stop and start: storage_error while down, recovery without help", "[postgres][restart]") {
    auto o = options_for("restart");
    o.connect_timeout = std::chrono::seconds{2};
    o.pool_size = 2;
    auto provider = make_postgres_lock_provider(o);
    auto before = provider->try_lock({"restart-held", std::chrono::minutes{5}});
    REQUIRE(before);
    CHECK(provider->try_lock({"restart-free", milliseconds{100}}));

    test::control_server("SHEDLOCK_TEST_POSTGRES", "halt");
    int failures = 0;
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        try {
            (void)provider->try_lock({"restart-free", milliseconds{100}});
        } catch (const storage_error& e) {
            ++failures;
            CHECK(e.category() == storage_category::unavailable);
            CHECK(std::string(e.what()).find("shedlock-test-pw") == std::string::npos);
        }
        // Does not hang: refused, or given up after the 2 s connect_timeout. Generous for a loaded
        // machine; how fast is for bench/, not a test.
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds{20});
    }
    CHECK(failures == 5);

    test::control_server("SHEDLOCK_TEST_POSTGRES", "resume");
    int failed_after_restart = 0;
    std::optional<lock_handle> again;
    for (int i = 0; i < 20 && !again; ++i) {
        try {
            again = provider->try_lock({"restart-free", milliseconds{100}});
        } catch (const storage_error&) {
            ++failed_after_restart;
            std::this_thread::sleep_for(milliseconds{100});
        }
    }
    CHECK(again);
    CHECK(failed_after_restart <= 1);
    CHECK_FALSE(provider->try_lock({"restart-held", std::chrono::minutes{5}}));  // the committed lock survived
}

TEST_CASE("postgres: a holder's unlock after a server restart releases the lock", "[postgres][restart]") {
    // The pooled connection idled through the restart: the owner-checked unlock is retried once
    // on a new connection instead of leaving the lock held until its lock_until.
    auto o = options_for("restart_unlock");
    o.connect_timeout = std::chrono::seconds{2};
    auto provider = make_postgres_lock_provider(o);
    auto held = provider->try_lock({"restart-unlock", std::chrono::minutes{5}});
    REQUIRE(held);
    test::control_server("SHEDLOCK_TEST_POSTGRES", "halt");
    test::control_server("SHEDLOCK_TEST_POSTGRES", "resume");
    CHECK_NOTHROW(held->unlock());
    CHECK(provider->try_lock({"restart-unlock", std::chrono::minutes{5}}));
}
