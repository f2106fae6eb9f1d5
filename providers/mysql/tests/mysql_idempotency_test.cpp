// The MySQL/MariaDB idempotency store on the real test server: the idempotency conformance suite
// (each backend on a claims table of its own) and the claims table's DDL.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "sql_claims_backend.hpp"
#include "mysql_test_server.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_idempotency_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <vector>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace {

using mysql_claims_backend = test::sql_claims_backend<mysql_run_options>;

std::unique_ptr<mysql_claims_backend> make_mysql_claims_backend() {
    return std::make_unique<mysql_claims_backend>(
        "mysql", mysql_run_options::from_uri(parse_provider_uri(test::mysql_server::uri())),
        [](const mysql_run_options& o, const shedlock::clock& c) { return make_mysql_idempotency_store(o, c); },
        test::mysql_server::exec);
}

/// The first column of every row of `sql`, on a connection of its own (MariaDB has no KILL of a
/// query's rows, so the ids are read first).
std::vector<std::string> first_column(const std::string& sql) {
    const auto o = mysql_options::from_uri(parse_provider_uri(test::mysql_server::uri()));
    MYSQL* db = mysql_init(nullptr);
    std::vector<std::string> values;
    if (mysql_real_connect(db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                           o.database.c_str(), o.port, nullptr, 0) && mysql_query(db, sql.c_str()) == 0) {
        MYSQL_RES* rows = mysql_store_result(db);
        while (MYSQL_ROW row = rows ? mysql_fetch_row(rows) : nullptr) values.emplace_back(row[0] ? row[0] : "");
        if (rows) mysql_free_result(rows);
    }
    const std::string error = mysql_error(db);
    mysql_close(db);
    if (!error.empty()) throw std::runtime_error("mysql: " + error + " (in: " + sql + ")");
    return values;
}

/// KILLs this process's connections to the server (as an operator's KILL or a restart would),
/// from a connection of its own, and waits until they are closed.
void kill_own_connections() {
    const int port = mysql_options::from_uri(parse_provider_uri(test::mysql_server::uri())).port;
    const auto ports = test::tcp_client_ports(::getpid(), port);
    REQUIRE_FALSE(ports.empty());
    std::string hosts;
    for (int p : ports) hosts += (hosts.empty() ? "'" : ", '") + std::string("127.0.0.1:") + std::to_string(p) + "'";
    const auto ids = first_column("SELECT ID FROM information_schema.PROCESSLIST WHERE HOST IN (" + hosts +
                                  ") AND ID <> CONNECTION_ID()");
    REQUIRE(ids.size() == ports.size());
    for (const auto& id : ids) test::mysql_server::exec("KILL CONNECTION " + id);
    REQUIRE(test::wait_until_closed(::getpid(), port, ports));
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<idempotency_backend> make_idempotency_backend() { return make_mysql_claims_backend(); }

}  // namespace shedlock::conformance

TEST_CASE("mysql idempotency store: a missing table prints the DDL", "[mysql][idempotency]") {
    auto o = mysql_run_options::from_uri(parse_provider_uri(test::mysql_server::uri()));
    o.table = "claims_missing_" + std::to_string(::getpid());
    test::mysql_server::exec("DROP TABLE IF EXISTS " + o.table);
    CHECK_THROWS_WITH(make_mysql_idempotency_store(o),
                      Contains("claims table \"" + o.table + "\" does not exist") &&
                          Contains("CREATE TABLE IF NOT EXISTS `" + o.table + "`") && Contains("VARBINARY(1020)") && Contains("PRIMARY KEY (kind, name)"));
}

TEST_CASE("mysql idempotency store: complete and fail after KILL CONNECTION are recorded", "[mysql][idempotency]") {
    auto backend = make_mysql_claims_backend();
    conformance::check_finish_after_connections_killed(*backend, kill_own_connections);
}
