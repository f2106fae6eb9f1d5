// The cluster provider on a real 3-primary/3-replica Redis Cluster (cluster.sh, started by
// cluster_test.sh): routing by slot, listing across primaries, run records through the registry,
// claims refused, scripts reloaded per node, and what doctor reports.
#include "redis_cluster_test_support.hpp"

#include <shedlock/lock_inspector.hpp>
#include <shedlock/provider_registry.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <set>

namespace shedlock::providers {
void register_redis_provider(provider_registry& registry);  // redis_registration.cpp
}

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

std::string lock_key(const providers::redis_cluster_options& o, const std::string& name) {
    return o.node.prefix + ":{" + name + "}";
}

}  // namespace

TEST_CASE("redis cluster: each lock lives on its slot's primary, names spread over every primary",
          "[redis][cluster]") {
    const auto options = test::cluster_test_options("cluster-routing");
    auto provider = providers::make_redis_cluster_lock_provider(options);
    const auto primaries = test::primary_ports();
    REQUIRE(primaries.size() == 3);
    std::map<std::string, lock_handle> held;
    for (int i = 0; i < 120; ++i) {
        const std::string name = "route-" + std::to_string(i);
        auto handle = provider->try_lock({name, milliseconds{60000}});
        REQUIRE(handle);
        held.emplace(name, std::move(*handle));
    }
    std::map<std::uint16_t, int> per_primary;
    for (const auto& [name, handle] : held) {
        const std::string key = lock_key(options, name);
        std::uint16_t holder = 0;
        for (auto port : primaries) {
            const std::string answer = test::raw_node(port)->text({"EXISTS", key});
            if (answer == "1") {
                CHECK(holder == 0);
                holder = port;
            } else {
                // Every other primary sends the client to the holder's address.
                CHECK_THAT(answer, Contains("MOVED"));
            }
        }
        INFO("lock " << name);
        REQUIRE(holder != 0);
        CHECK(test::raw_node(holder)->text({"EXISTS", key + ":fence"}) == "1");  // same slot, same node
        ++per_primary[holder];
    }
    CHECK(per_primary.size() == 3);
    // A second client is refused on every primary.
    auto other = providers::make_redis_cluster_lock_provider(options);
    for (const auto& [name, handle] : held) CHECK_FALSE(other->try_lock({name, milliseconds{60000}}));
    // The listing SCANs every primary.
    const auto records = inspect(*provider).list_locks();
    std::set<std::string> listed;
    for (const auto& r : records) {
        listed.insert(r.name);
        CHECK(r.locked_by == held.at(r.name).lease().owner);
        CHECK(r.fencing_token == held.at(r.name).fencing_token());
    }
    CHECK(listed.size() == held.size());
    for (auto& [name, handle] : held) handle.unlock();
    for (const auto& [name, handle] : held) CHECK(other->try_lock({name, milliseconds{1000}}));
    std::vector<std::string> names;
    for (const auto& [name, handle] : held) names.push_back(name);
    inspect(*provider).delete_records(names);
    CHECK(inspect(*provider).list_locks().empty());
}

TEST_CASE("redis cluster: a primary that forgot the scripts loads them again on its own", "[redis][cluster]") {
    const auto options = test::cluster_test_options("cluster-noscript");
    auto provider = providers::make_redis_cluster_lock_provider(options);
    REQUIRE(provider->try_lock({"warm", milliseconds{1000}}));  // learns the SHA1s
    for (auto port : test::primary_ports()) CHECK(test::raw_node(port)->text({"SCRIPT", "FLUSH"}) == "OK");
    std::set<std::uint16_t> reached;
    for (int i = 0; i < 40; ++i) {
        const std::string name = "noscript-" + std::to_string(i);
        auto held = provider->try_lock({name, milliseconds{60000}});
        REQUIRE(held);
        reached.insert(test::holder_of(lock_key(options, name)));
        held->unlock();
    }
    CHECK(reached.size() == 3);  // every primary answered NOSCRIPT once and was loaded
}

TEST_CASE("redis cluster: run records through redis-cluster:// and claims are refused naming the alternative",
          "[redis][cluster]") {
    provider_registry registry;
    providers::register_redis_provider(registry);
    const std::string uri = test::required_env("SHEDLOCK_TEST_REDIS_CLUSTER_URI") +
                            "?prefix=" + test::unique_prefix("cluster-session");
    const auto session = open_backend(uri, {}, registry);
    REQUIRE(session->has_runs());
    auto& runs = session->runs();
    for (int i = 0; i < 12; ++i) {
        run_record r;
        r.task = "task-" + std::to_string(i % 6);
        r.lock_name = r.task;
        r.instance = "test:1";
        r.fencing_token = i;
        runs.append(r);
    }
    CHECK(runs.tasks().size() == 6);
    CHECK(runs.last_runs("task-3", 10).size() == 2);
    auto held = session->locks().try_lock({"task-3", milliseconds{60000}});
    CHECK(held);
    CHECK_THROWS_WITH(session->claims(), Contains("redis-cluster://") && Contains("claims") && Contains("redis://") &&
                                             !Contains("shedlock-test-pw"));
    held.reset();
    inspect(session->locks()).delete_records({"task-3"});
}

TEST_CASE("redis cluster: doctor reports the primaries, slot coverage, replicas and persistence",
          "[redis][cluster]") {
    auto provider = providers::make_redis_cluster_lock_provider(test::cluster_test_options("cluster-doctor"));
    const auto notes = inspect(*provider).topology();
    REQUIRE(notes.size() == 5);
    CHECK_THAT(notes[0].text, Contains("cluster_state ok") && Contains("3 primaries") &&
                                  Contains("16384 of 16384 slots covered"));
    CHECK_FALSE(notes[0].weakens);
    for (std::size_t i = 1; i <= 3; ++i) {
        INFO(notes[i].text);
        CHECK_THAT(notes[i].text, Contains("cluster primary 127.0.0.1:") && Contains("1 replica(s)") &&
                                      Contains("AOF on"));
        CHECK_FALSE(notes[i].weakens);
    }
    CHECK_THAT(notes[4].text, Contains("asynchronous"));
}
