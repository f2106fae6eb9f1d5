// MariaDB stop/start of the real server, so it runs alone (ctest RUN_SERIAL).
#include "server_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <thread>

using namespace shedlock;
using namespace shedlock::providers;
using std::chrono::milliseconds;

TEST_CASE("mysql: server stop and start: storage_error while down, recovery without help", "[mysql][restart]") {
    auto o = providers::mysql_options::from_uri(
        parse_provider_uri(test::required_env("SHEDLOCK_TEST_MYSQL_URI", "providers/mysql/server.sh")));
    o.table = "restart_" + std::to_string(::getpid());
    o.create_schema_if_missing = true;
    o.connect_timeout = std::chrono::seconds{2};
    o.pool_size = 2;
    auto provider = make_mysql_lock_provider(o);
    auto before = provider->try_lock({"restart-held", std::chrono::minutes{5}});
    REQUIRE(before);
    CHECK(provider->try_lock({"restart-free", milliseconds{100}}));

    test::control_server("SHEDLOCK_TEST_MARIADB", "halt");
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

    test::control_server("SHEDLOCK_TEST_MARIADB", "resume");
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

TEST_CASE("mysql: a holder's unlock after a server restart releases the lock", "[mysql][restart]") {
    // The pooled connection idled through the restart: the owner-checked unlock is retried once
    // on a new connection instead of leaving the lock held until its lock_until.
    auto o = providers::mysql_options::from_uri(
        parse_provider_uri(test::required_env("SHEDLOCK_TEST_MYSQL_URI", "providers/mysql/server.sh")));
    o.table = "restart_unlock_" + std::to_string(::getpid());
    o.create_schema_if_missing = true;
    o.connect_timeout = std::chrono::seconds{2};
    auto provider = make_mysql_lock_provider(o);
    auto held = provider->try_lock({"restart-unlock", std::chrono::minutes{5}});
    REQUIRE(held);
    test::control_server("SHEDLOCK_TEST_MARIADB", "halt");
    test::control_server("SHEDLOCK_TEST_MARIADB", "resume");
    CHECK_NOTHROW(held->unlock());
    CHECK(provider->try_lock({"restart-unlock", std::chrono::minutes{5}}));
}
