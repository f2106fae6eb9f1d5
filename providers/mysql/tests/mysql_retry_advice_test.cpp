// Retry advice against the real server: a session the server killed while it idled fails safe
// before anything is sent. The lost-answer case is shared: tests/sql_server/retry_advice_test.cpp.
#include "mysql_connection.hpp"  // the provider's own session, to see one statement's advice
#include "mysql_errors.hpp"
#include "mysql_test_server.hpp"
#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace my_retry_test {

namespace test_server = shedlock::test::mysql_server;
using shedlock::parse_provider_uri;
using shedlock::providers::mysql_options;
using session = shedlock::providers::detail::mysql_connection;

mysql_options server_options() { return mysql_options::from_uri(parse_provider_uri(test_server::uri())); }

/// Kills the server session `id` and waits until it is gone.
void kill_session(const std::string& id) {
    session killer(server_options());
    killer.execute("KILL " + id, {});
    shedlock::test::sql_server::wait_until_gone([&] {
        const std::int64_t session_id = std::stoll(id);
        return killer.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", {session_id})
            .rows.at(0)
            .at(0);
    });
}

}  // namespace my_retry_test

using namespace my_retry_test;  // NOLINT: the test cases below only

TEST_CASE("mysql retry advice: each error code's advice by how far the request got", "[mysql][retry]") {
    using shedlock::providers::detail::mysql_retry_advice;
    using stage = shedlock::providers::detail::mysql_stage;
    const auto unavailable = storage_category::unavailable;
    CHECK(mysql_retry_advice(2003, unavailable, stage::connecting) == retry_advice::safe);  // CR_CONN_HOST_ERROR
    CHECK(mysql_retry_advice(2013, unavailable, stage::preparing) == retry_advice::safe);   // nothing ran
    CHECK(mysql_retry_advice(2013, unavailable, stage::executing) == retry_advice::in_doubt);  // CR_SERVER_LOST
    CHECK(mysql_retry_advice(1927, unavailable, stage::executing) == retry_advice::in_doubt);  // killed meanwhile
    CHECK(mysql_retry_advice(2006, unavailable, stage::executing) == retry_advice::safe);  // could not write it
    CHECK(mysql_retry_advice(1213, storage_category::conflict, stage::executing) == retry_advice::safe);  // deadlock victim
    CHECK(mysql_retry_advice(1205, storage_category::busy, stage::executing) == retry_advice::safe);  // lock wait timeout
    CHECK(mysql_retry_advice(1146, storage_category::missing_schema, stage::executing) == retry_advice::permanent);
    CHECK(mysql_retry_advice(1045, storage_category::access_denied, stage::connecting) == retry_advice::permanent);
}

TEST_CASE("mysql retry advice: a session killed while idle fails safe before its statement is sent", "[mysql][retry]") {
    session victim(server_options());
    kill_session(victim.execute("SELECT CONNECTION_ID()", {}).rows.at(0).at(0).value());
    shedlock::test::sql_server::check_fails_unsent([&] { victim.execute("SELECT ?", {std::int64_t{1}}); });
}
