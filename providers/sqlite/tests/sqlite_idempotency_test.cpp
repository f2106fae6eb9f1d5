// The SQLite idempotency store: the idempotency conformance suite (each backend on a claims
// table of its own in one scratch file, shared by forked processes) and opening by URI.
#include "idempotency_conformance.hpp"
#include "sql_claims_backend.hpp"
#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/sqlite_idempotency_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace {

sqlite_run_options claims_file_options() {
    sqlite_run_options o;
    o.path = test::scratch_dir() + "/claims.db";
    return o;
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<idempotency_backend> make_idempotency_backend() {
    return std::make_unique<test::sql_claims_backend<sqlite_run_options>>(
        "sqlite", claims_file_options(),
        [](const sqlite_run_options& o, const shedlock::clock& c) { return make_sqlite_idempotency_store(o, c); },
        [](const std::string&) {});  // a fresh table name in a scratch file: nothing to drop
}

}  // namespace shedlock::conformance

namespace shedlock::providers {
void register_sqlite_provider(provider_registry& registry);  // defined by the provider (no header)
}

TEST_CASE("sqlite idempotency store: opened by URI, claims_table and the DDL", "[sqlite][idempotency]") {
    provider_registry registry;
    register_sqlite_provider(registry);
    const std::string file = test::scratch_dir() + "/by-uri.db";
    CHECK_THROWS_WITH(open_idempotency_store("sqlite:" + file + "?claims_table=my_claims", {}, registry),
                      Contains("claims table \"my_claims\" does not exist") &&
                          Contains("CREATE TABLE IF NOT EXISTS \"my_claims\""));
    open_request create;
    create.create_schema = true;
    auto store = open_idempotency_store("sqlite:" + file + "?claims_table=my_claims", create, registry);
    REQUIRE(store->claim("k", std::chrono::minutes{1}).status == claim_status::claimed);
    auto again = open_idempotency_store("sqlite:" + file + "?claims_table=my_claims", {}, registry);
    CHECK(again->claim("k", std::chrono::minutes{1}).status == claim_status::in_progress);
    CHECK_THROWS_AS(open_idempotency_store("sqlite:" + file + "?claims_table=bad-name", {}, registry), configuration_error);
    const auto ddl = schema_for("sqlite:" + file + "?claims_table=my_claims", registry);
    CHECK_THAT(ddl, Contains("CREATE TABLE IF NOT EXISTS \"my_claims\"") && Contains("shedlock_runs"));
}
