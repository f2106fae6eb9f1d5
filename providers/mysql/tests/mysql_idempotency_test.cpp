// The MySQL/MariaDB idempotency store on the real test server: the idempotency conformance suite
// (each backend on a claims table of its own) and the claims table's DDL.
#include "idempotency_conformance.hpp"
#include "sql_claims_backend.hpp"
#include "mysql_test_server.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_idempotency_store.hpp>

#include <catch2/catch.hpp>

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
