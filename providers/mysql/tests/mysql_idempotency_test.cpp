// The MySQL/MariaDB idempotency store on the real test server: the idempotency conformance suite
// (each backend on a claims table of its own) and the claims table's DDL.
#include "idempotency_conformance.hpp"
#include "server_env.hpp"
#include "sql_claims_backend.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_idempotency_store.hpp>

#include <catch2/catch.hpp>
#include <mysql.h>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace {

std::string claims_server_uri() {
    return test::required_env("SHEDLOCK_TEST_MYSQL_URI", "providers/mysql/server.sh");
}

void claims_exec(const std::string& sql) {
    const auto o = mysql_options::from_uri(parse_provider_uri(claims_server_uri()));
    MYSQL* db = mysql_init(nullptr);
    if (!mysql_real_connect(db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                            o.database.c_str(), o.port, nullptr, 0) ||
        mysql_query(db, sql.c_str()) != 0) {
        const std::string error = mysql_error(db);
        mysql_close(db);
        throw std::runtime_error(error);
    }
    mysql_close(db);
}

using mysql_claims_backend = test::sql_claims_backend<mysql_run_options>;

std::unique_ptr<mysql_claims_backend> make_mysql_claims_backend() {
    return std::make_unique<mysql_claims_backend>(
        "mysql", mysql_run_options::from_uri(parse_provider_uri(claims_server_uri())),
        [](const mysql_run_options& o, const shedlock::clock& c) { return make_mysql_idempotency_store(o, c); },
        claims_exec);
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<idempotency_backend> make_idempotency_backend() { return make_mysql_claims_backend(); }

}  // namespace shedlock::conformance

TEST_CASE("mysql idempotency store: a missing table prints the DDL", "[mysql][idempotency]") {
    auto o = mysql_run_options::from_uri(parse_provider_uri(claims_server_uri()));
    o.table = "claims_missing_" + std::to_string(::getpid());
    claims_exec("DROP TABLE IF EXISTS " + o.table);
    CHECK_THROWS_WITH(make_mysql_idempotency_store(o),
                      Contains("claims table \"" + o.table + "\" does not exist") &&
                          Contains("CREATE TABLE IF NOT EXISTS `" + o.table + "`") && Contains("VARBINARY(1020)") && Contains("PRIMARY KEY (kind, name)"));
}
