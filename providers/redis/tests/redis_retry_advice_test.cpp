// Retry advice against the real server: a connection the server closed while it idled fails safe
// before anything is sent; a run-record append whose answer was lost after the server applied it
// is in doubt, reported as such ("may have been applied"), and not run again.
#include "redis_connection.hpp"  // the provider's own connection, to see one command's advice
#include "redis_errors.hpp"
#include "redis_test_support.hpp"
#include "reply_dropping_proxy.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_run_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

TEST_CASE("redis retry advice: refusals that apply nothing are safe, the others permanent", "[redis][retry]") {
    using shedlock::providers::detail::reply_error;
    const std::string at = "Redis at test";
    CHECK(reply_error("LOADING Redis is loading the dataset in memory", "EVALSHA", at).advice() == shedlock::retry_advice::safe);
    CHECK(reply_error("READONLY You can't write against a read only replica.", "EVALSHA", at).advice() ==
          shedlock::retry_advice::safe);
    CHECK(reply_error("OOM command not allowed when used memory > 'maxmemory'.", "EVALSHA", at).advice() ==
          shedlock::retry_advice::safe);
    CHECK(reply_error("BUSY Redis is busy running a script.", "EVALSHA", at).advice() == shedlock::retry_advice::safe);
    CHECK(reply_error("WRONGTYPE Operation against a key holding the wrong kind of value", "GET", at).advice() ==
          shedlock::retry_advice::permanent);
    CHECK(reply_error("NOPERM this user has no permissions", "EVALSHA", at).advice() == shedlock::retry_advice::permanent);
    const auto lost = shedlock::providers::detail::io_error("timed out", "EVALSHA", at, shedlock::retry_advice::in_doubt);
    CHECK(lost.advice() == shedlock::retry_advice::in_doubt);
    CHECK_THAT(lost.what(), Catch::Matchers::Contains("may have been applied"));
}

TEST_CASE("redis retry advice: a connection killed while idle fails safe before its command is sent", "[redis][retry]") {
    const auto options = shedlock::test::redis_test_options();
    shedlock::providers::detail::redis_connection victim(options);
    const auto id = victim.checked({"CLIENT", "ID"}, "CLIENT ID")->integer;
    shedlock::test::raw_redis killer(options);
    CHECK(killer.integer({"CLIENT", "KILL", "ID", std::to_string(id)}) == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the close reaches the idle socket
    try {
        (void)victim.command({"PING"}, "PING");
        FAIL("a killed connection answered");
    } catch (const shedlock::storage_error& e) {
        INFO(e.what());
        CHECK(e.category() == shedlock::storage_category::unavailable);
        CHECK(e.advice() == shedlock::retry_advice::safe);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("not sent"));
    }
}

TEST_CASE("redis retry advice: an acquire after CLIENT KILL of the idle connections runs again on a new one",
          "[redis][retry]") {
    auto options = shedlock::test::redis_test_options();
    options.prefix = shedlock::test::unique_prefix("retry-acquire");
    auto provider = shedlock::providers::make_redis_lock_provider(options);
    auto first = provider->try_lock({"before-kill", std::chrono::minutes{5}});
    REQUIRE(first);
    const auto ports = shedlock::test::tcp_client_ports(::getpid(), options.port);  // before the killer's own
    REQUIRE_FALSE(ports.empty());
    {
        shedlock::test::raw_redis killer(options);
        for (int port : ports)
            CHECK(killer.text({"CLIENT", "KILL", "ADDR", options.host + ":" + std::to_string(port)}) == "1");
    }
    REQUIRE(shedlock::test::wait_until_closed(::getpid(), options.port, ports));
    auto second = provider->try_lock({"after-kill", std::chrono::minutes{5}});  // never sent on the killed one
    CHECK(second);
}

TEST_CASE("redis retry advice: an append whose answer was lost is in doubt and reported, never stored twice",
          "[redis][retry]") {
    shedlock::providers::redis_run_options direct_options;
    direct_options.server = shedlock::test::redis_test_options();
    direct_options.server.prefix = shedlock::test::unique_prefix("retry-advice");
    shedlock::test::reply_dropping_proxy proxy(direct_options.server.port);
    auto proxied_options = direct_options;
    proxied_options.server.port = proxy.port();
    auto direct = shedlock::providers::make_redis_run_store(direct_options);
    auto proxied = shedlock::providers::make_redis_run_store(proxied_options);

    const std::string marker = "lost-answer-" + std::to_string(::getpid());
    shedlock::run_record record{"doubt-task", "doubt-lock", "test:1", {}, {}, {}, shedlock::run_outcome::succeeded, 1,
                                marker, {}, false};
    proxy.arm(marker);
    try {
        proxied->append(record);
        FAIL("the lost answer was not reported");
    } catch (const shedlock::storage_error& e) {
        INFO(e.what());
        CHECK(proxy.fired());
        CHECK(e.advice() == shedlock::retry_advice::in_doubt);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("may have been applied"));
    }
    const auto stored = direct->last_runs("doubt-task", 10);
    REQUIRE(stored.size() == 1);  // applied once, and not run again
    CHECK(stored.front().message == marker);
}
