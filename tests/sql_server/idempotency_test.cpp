// The idempotency store of every SQL server backend on its real test server: the idempotency
// conformance suite (each backend on a claims table of its own), the claims table's DDL, and
// finishing a claim after an operator ended the store's sessions.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "sql_claims_backend.hpp"
#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>

#include <unistd.h>

using namespace shedlock;
using namespace shedlock::test::sql_server;

namespace {

using claims_backend = shedlock::test::sql_claims_backend<sql::sql_run_options>;

std::unique_ptr<claims_backend> make_claims_backend() {
    return std::make_unique<claims_backend>(words().name, sql::sql_run_options{}, backend().make_claims, backend().exec);
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<idempotency_backend> make_idempotency_backend() { return make_claims_backend(); }

}  // namespace shedlock::conformance

SQL_SERVER_CASE("{name} idempotency store: a missing table prints the DDL", "[idempotency]") {
    sql::sql_run_options o;
    o.table = "claims_missing_" + std::to_string(::getpid());
    backend().exec("DROP TABLE IF EXISTS " + o.table);
    std::vector<std::string> ddl{"claims table \"" + o.table + "\" does not exist",
                                 "CREATE TABLE IF NOT EXISTS " + backend().quote(o.table)};
    ddl.insert(ddl.end(), backend().claims_ddl_parts.begin(), backend().claims_ddl_parts.end());
    ddl.push_back("PRIMARY KEY (kind, name)");
    CHECK_THROWS_WITH(backend().make_claims(o, system_clock::instance()), contains_all(ddl));
}

SQL_SERVER_CASE("{name} idempotency store: complete and fail after {kill} are recorded", "[idempotency]") {
    auto claims = make_claims_backend();
    conformance::check_finish_after_connections_killed(*claims, backend().kill_own_connections);
}
