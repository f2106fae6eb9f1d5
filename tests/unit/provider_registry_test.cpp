#include <shedlock/all_providers.hpp>
#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

TEST_CASE("registry: every built provider opens by URI, schemes and aliases", "[registry]") {
    provider_registry registry;
    register_all_providers(registry);
    register_all_providers(registry);  // idempotent
    CHECK_THAT(registry.supported_schemes(), Contains("memory:") && Contains("sqlite:"));
    auto memory = open_lock_provider("memory:", {}, registry);
    REQUIRE(memory);
    CHECK(memory->try_lock({"registry", milliseconds{1000}}));
    CHECK(open_run_store("memory:", {}, registry));
    CHECK(schema_for("memory:", registry).empty());
    CHECK_THAT(schema_for("sqlite:x.db?table=select&runs_table=order", registry),
               Contains("CREATE TABLE IF NOT EXISTS \"select\"") && Contains("CREATE TABLE IF NOT EXISTS \"order\""));
    const std::string schemes = registry.supported_schemes();
    if (schemes.find("postgresql://") != std::string::npos) {
        CHECK_THAT(schema_for("postgres://u@h/db", registry), Contains("TIMESTAMP(3)"));
        CHECK_THAT(schema_for("postgresql://u@h/db", registry), Contains("TIMESTAMP(3)"));
    }
    if (schemes.find("mysql://") != std::string::npos)
        CHECK_THAT(schema_for("mariadb://u@h/db", registry), Contains("VARBINARY(256)"));
    if (schemes.find("redis://") != std::string::npos) CHECK(schema_for("redis://h:6379/0", registry).empty());
}

TEST_CASE("registry: an unknown scheme names the schemes of this build", "[registry]") {
    provider_registry registry;
    register_all_providers(registry);
    CHECK_THROWS_WITH(open_lock_provider("etcd://h:2379", {}, registry),
                      Contains("scheme \"etcd\" is not supported by this build") && Contains("memory:") &&
                          Contains("sqlite:"));
    provider_registry empty;
    CHECK_THROWS_WITH(open_lock_provider("memory:", {}, empty), Contains("register_all_providers()"));
    CHECK_THROWS_AS(open_lock_provider("memory:?bogus=1", {}, registry), configuration_error);
}

TEST_CASE("registry: a scheme can belong to one backend only", "[registry]") {
    provider_registry registry;
    registry.add({"one", {"x"}, {}, {}});
    registry.add({"one", {"x"}, {}, {}});  // the same backend again: ignored
    CHECK_THROWS_WITH(registry.add({"two", {"y", "x"}, {}, {}}), Contains("\"x\"") && Contains("\"one\""));
    CHECK_THROWS_WITH(open_lock_provider("x:", {}, registry), Contains("one has no lock provider"));
    CHECK_THROWS_WITH(open_run_store("x:", {}, registry), Contains("keeps no run records"));
}

TEST_CASE("registry: an on-demand backend is loaded when a URI first names it, once", "[registry]") {
    provider_registry registry;
    int loads = 0;
    registry.add_on_demand("lazy", {"lazy", "lz"}, [&loads](provider_registry& r) {
        ++loads;
        r.add({"lazy", {"lazy", "lz"}, {}, [](const provider_uri&) { return std::string("DDL"); }});
    });
    CHECK_THAT(registry.supported_schemes(), Contains("lazy://") && Contains("lz://"));
    CHECK(loads == 0);  // declaring loads nothing
    CHECK(schema_for("lz://h", registry) == "DDL");
    CHECK(schema_for("lazy://h", registry) == "DDL");
    CHECK(loads == 1);
    CHECK(registry.supported_schemes() == "lazy://, lz://");  // each scheme named once
    CHECK(registry.schemes() == std::vector<std::string>{"lazy", "lz"});
}

TEST_CASE("registry: an on-demand load that fails is reported and tried again", "[registry]") {
    provider_registry registry;
    int loads = 0;
    registry.add_on_demand("broken", {"broken"}, [&loads](provider_registry&) {
        if (++loads == 1) throw configuration_error("module broken.so cannot be loaded");
    });
    CHECK_THROWS_WITH(schema_for("broken://h", registry), Contains("broken.so cannot be loaded"));
    // The second load returns without registering: the module does not match the program.
    CHECK_THROWS_WITH(schema_for("broken://h", registry),
                      Contains("was loaded for scheme \"broken\" but did not register it"));
    CHECK(loads == 2);
}
