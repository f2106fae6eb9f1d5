// One backend session, one pool: the lock provider, run store and idempotency store that a session
// on an SQLite URI hands out share the connections of one pool (sql_backend, the template every
// SQL backend registers with, so PostgreSQL and MySQL sessions share theirs the same way).
#include "test_env.hpp"

#include <shedlock/backend_session.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/sql/sql_registration.hpp>
#include <shedlock/providers/sqlite_idempotency_store.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>

using namespace shedlock;
using namespace shedlock::providers;
using std::chrono::milliseconds;

namespace {

/// The SQLite backend as it registers itself, with every connection its sessions open counted.
void register_counted_sqlite(provider_registry& registry, std::atomic<int>& opened) {
    registry.add(sql::sql_backend<sqlite_options, sqlite_run_options>(
        "sqlite", {"sqlite"}, make_sqlite_lock_provider, make_sqlite_run_store, make_sqlite_dialect,
        [](const sqlite_run_options& o, const shedlock::clock& c) { return make_sqlite_idempotency_store(o, c); },
        [&opened](const sqlite_options& o) -> sql::connection_factory {
            return [inner = sqlite_connections(o), &opened] {
                ++opened;
                return inner();
            };
        }));
}

std::string session_uri(const std::string& file) {
    const std::string path = test::scratch_dir() + "/" + file;
    std::filesystem::remove(path);
    return "sqlite:" + path + "?create_schema=true&pool_size=1";
}

}  // namespace

TEST_CASE("sqlite session: locks, run records and claims share one pool", "[sqlite][session]") {
    provider_registry registry;
    std::atomic<int> opened{0};
    register_counted_sqlite(registry, opened);
    const auto session = open_backend(session_uri("session-one-pool.db"), {}, registry);
    REQUIRE(session->has_runs());
    REQUIRE(session->has_claims());

    // Run records first: a run store with a pool of its own would never call the counted factory.
    CHECK(session->runs().tasks().empty());
    CHECK(opened == 1);
    CHECK(session->claims().list().empty());
    auto held = session->locks().try_lock({"session-pool", milliseconds{60000}});
    CHECK(held);
    held.reset();
    CHECK(session->inspector().list_locks().size() == 1);
    // pool_size=1 and one caller at a time: every part borrowed the one connection of the one
    // pool (a pool per part would have opened three).
    CHECK(opened == 1);
    // The parts are opened once per session and handed out again.
    CHECK(session->share_locks().get() == &session->locks());
    CHECK(session->share_runs().get() == &session->runs());
    CHECK(&session->inspector() == session->locks().inspector());
}

TEST_CASE("sqlite session: a part handed out keeps the pool after the session is gone", "[sqlite][session]") {
    provider_registry registry;
    std::atomic<int> opened{0};
    register_counted_sqlite(registry, opened);
    std::shared_ptr<lock_provider> locks;
    std::shared_ptr<run_store> runs;
    {
        const auto session = open_backend(session_uri("session-outlived.db"), {}, registry);
        runs = session->share_runs();
        locks = session->share_locks();
    }
    CHECK(locks->try_lock({"session-outlived", milliseconds{60000}}));
    CHECK(opened == 1);
    CHECK(runs->tasks().empty());
    CHECK(opened == 1);
}
