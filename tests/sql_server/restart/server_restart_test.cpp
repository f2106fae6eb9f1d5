// Stop and start of the real server, on every SQL server backend: locks and claims while it is
// down and after it is back. The server is stopped and started again on the same data, so these
// cases run alone (the backends' serial programs).
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "server_env.hpp"
#include "sql_claims_backend.hpp"
#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>

#include <thread>

using namespace shedlock;
using namespace shedlock::test::sql_server;
using std::chrono::milliseconds;

namespace {

void halt_server() { shedlock::test::control_server(backend().server_env, "halt"); }
void resume_server() { shedlock::test::control_server(backend().server_env, "resume"); }

lock_options restart_options(const std::string& table) {
    auto o = options_for(table);
    o.create_schema_if_missing = true;
    o.connect_timeout = std::chrono::seconds{2};
    return o;
}

}  // namespace

SQL_SERVER_CASE("{name}: server stop and start: storage_error while down, recovery without help", "[restart]") {
    auto o = restart_options("restart");
    o.pool_size = 2;
    auto provider = make_provider(o);
    auto before = provider->try_lock({"restart-held", std::chrono::minutes{5}});
    REQUIRE(before);
    CHECK(provider->try_lock({"restart-free", milliseconds{100}}));

    halt_server();
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

    resume_server();
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

SQL_SERVER_CASE("{name}: a holder's unlock after a server restart releases the lock", "[restart]") {
    // The pooled connection idled through the restart: the owner-checked unlock is retried once
    // on a new connection instead of leaving the lock held until its lock_until.
    auto o = restart_options("restart_unlock");
    auto provider = make_provider(o);
    auto held = provider->try_lock({"restart-unlock", std::chrono::minutes{5}});
    REQUIRE(held);
    halt_server();
    resume_server();
    CHECK_NOTHROW(held->unlock());
    CHECK(provider->try_lock({"restart-unlock", std::chrono::minutes{5}}));
}

SQL_SERVER_CASE("{name} idempotency store: claims survive a server restart", "[idempotency][restart]") {
    // Nothing to drop: the table name is unique to this process and the scratch database is thrown away.
    shedlock::test::sql_claims_backend<sql::sql_run_options> claims(
        words().name, sql::sql_run_options{}, backend().make_claims, [](const std::string&) {});
    conformance::check_claims_survive_restart(claims, [] {
        halt_server();
        resume_server();
    });
}
