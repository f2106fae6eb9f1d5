// Retry advice against the real server: a session the server killed while it idled fails safe
// before anything is sent (and the run-record append runs again on a new connection); an append
// whose answer was lost after the server applied it is in doubt, reported as such ("may have
// been applied"), and not run again.
#include "mysql_connection.hpp"  // the provider's own session, to see one statement's advice
#include "mysql_test_server.hpp"
#include "reply_dropping_proxy.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_run_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace my_retry_test {

namespace test_server = shedlock::test::mysql_server;
using shedlock::parse_provider_uri;
using shedlock::retry_advice;
using shedlock::run_outcome;
using shedlock::run_record;
using shedlock::storage_category;
using shedlock::storage_error;
using shedlock::providers::mysql_options;
using shedlock::providers::mysql_run_options;
using session = shedlock::providers::detail::mysql_connection;

std::string unique(const std::string& what) { return "retry_" + what + "_" + std::to_string(::getpid()); }

mysql_options server_options() { return mysql_options::from_uri(parse_provider_uri(test_server::uri())); }

/// Kills the server session `id` and waits until it is gone.
void kill_session(const std::string& id) {
    session killer(server_options());
    killer.execute("KILL " + id, {});
    for (int i = 0; i < 250; ++i) {
        const auto left = killer.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?",
                                         {std::int64_t{std::stoll(id)}});
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

}  // namespace my_retry_test

using namespace my_retry_test;  // NOLINT: the test cases below only

TEST_CASE("mysql retry advice: a session killed while idle fails safe before its statement is sent", "[mysql][retry]") {
    session victim(server_options());
    kill_session(victim.execute("SELECT CONNECTION_ID()", {}).rows.at(0).at(0).value());
    try {
        victim.execute("SELECT ?", {std::int64_t{1}});
        FAIL("a killed session answered");
    } catch (const storage_error& e) {
        INFO(e.what());
        CHECK(e.category() == storage_category::unavailable);
        CHECK(e.advice() == retry_advice::safe);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("was not sent"));
    }
}

TEST_CASE("mysql retry advice: an append whose answer was lost is in doubt and reported, never stored twice",
          "[mysql][retry]") {
    const std::string runs = unique("doubt_runs");
    const int server_port = parse_provider_uri(test_server::uri()).port.value_or(3306);
    shedlock::test::reply_dropping_proxy proxy(static_cast<std::uint16_t>(server_port));
    // ssl_mode=DISABLED: the proxy must see the statement (the values travel in its execute packet).
    const auto direct_options =
        mysql_run_options::from_uri(parse_provider_uri(test_server::uri() + "?create_schema=true&runs_table=" + runs));
    const auto proxied_options = mysql_run_options::from_uri(parse_provider_uri(
        through_port(test_server::uri(), server_port, proxy.port()) + "?ssl_mode=DISABLED&runs_table=" + runs));
    auto direct = shedlock::providers::make_mysql_run_store(direct_options);
    auto proxied = shedlock::providers::make_mysql_run_store(proxied_options);

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
}
