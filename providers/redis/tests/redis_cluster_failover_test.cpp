// A primary failover under a held lock: kill -9 the primary serving the lock's slot; the cluster
// promotes its replica (cluster-node-timeout 1 s). Calls meanwhile fail as unavailable (never
// "held"), later calls reach the promoted replica. A lock confirmed on the replica (WAIT) survives
// and its owner can extend and unlock it; locks acquired just before the kill may be lost
// (asynchronous replication): their count is recorded, and every token handed out after the
// failover is above every token handed out before it. The second case makes the loss certain: the
// replica is frozen and its link cut while locks are taken, then the primary is killed.
#include "redis_cluster_slots.hpp"
#include "redis_cluster_test_support.hpp"
#include "process_freeze.hpp"

#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <map>
#include <thread>

using namespace shedlock;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

namespace {

struct failover_figures {
    int unavailable_calls = 0;
    std::chrono::milliseconds until_first_success{0};
};

/// try_lock `name` until a call answers (acquired or refused): the promotion is done.
failover_figures wait_for_promotion(lock_provider& provider, const std::string& probe) {
    failover_figures f;
    const auto start = steady::now();
    const auto deadline = start + std::chrono::seconds{30};  // generous: a promotion takes ~1-3 s
    while (true) {
        try {
            auto held = provider.try_lock({probe, milliseconds{60000}});
            if (held) held->unlock();
            break;
        } catch (const storage_error& e) {
            INFO(e.what());
            REQUIRE(e.category() == storage_category::unavailable);  // never another kind
            ++f.unavailable_calls;
            REQUIRE(steady::now() < deadline);  // the replica should have been promoted by now
            std::this_thread::sleep_for(milliseconds{20});  // polling pace, not a synchronisation
        }
    }
    f.until_first_success = std::chrono::duration_cast<milliseconds>(steady::now() - start);
    return f;
}

struct victim_names {
    std::vector<std::string> locks;  ///< 20 names to lock before the kill
    std::string probe;               ///< the rival's probe: answered once the victim is replaced
    std::string holder_probe;        ///< the holder's
};

/// Names whose slots the primary on `victim` serves (it answers EXISTS instead of MOVED).
victim_names names_on(std::uint16_t victim, const providers::redis_cluster_options& options, const std::string& stem) {
    std::vector<std::string> found;
    for (int i = 0; found.size() < 22; ++i) {
        const std::string n = stem + std::to_string(i);
        if (test::raw_node(victim)->text({"EXISTS", options.node.prefix + ":{" + n + "}"}) == "0") found.push_back(n);
    }
    const std::string probe = found[20], holder_probe = found[21];
    found.resize(20);
    return {found, probe, holder_probe};
}

}  // namespace

TEST_CASE("redis cluster: a killed primary's replica takes over and confirmed locks survive, tokens keep rising",
          "[redis][cluster][failover]") {
    const auto options = test::cluster_test_options("cluster-failover");
    auto holder = providers::make_redis_cluster_lock_provider(options);
    auto rival = providers::make_redis_cluster_lock_provider(options);
    const auto key_of = [&](const std::string& n) { return options.node.prefix + ":{" + n + "}"; };

    auto confirmed = holder->try_lock({"confirmed", milliseconds{60000}});
    REQUIRE(confirmed);
    const std::uint16_t victim = test::holder_of(key_of("confirmed"));
    REQUIRE(victim != 0);
    // Names on the victim's slots, acquired right before the kill (not waited for).
    const auto [late_names, probe, holder_probe] = names_on(victim, options, "late-");
    std::int64_t highest_before = *confirmed->fencing_token();
    // The replica has the confirmed lock once WAIT says so.
    REQUIRE(test::raw_node(victim)->text({"WAIT", "1", "5000"}) == "1");
    std::map<std::string, lock_handle> late;
    for (const auto& n : late_names) {
        auto h = holder->try_lock({n, milliseconds{60000}});
        REQUIRE(h);
        highest_before = std::max(highest_before, *h->fencing_token());
        late.emplace(n, std::move(*h));
    }
    REQUIRE(::kill(test::node_pid(victim), SIGKILL) == 0);

    const auto figures = wait_for_promotion(*rival, probe);
    (void)wait_for_promotion(*holder, holder_probe);  // the holder's map may lag the rival's by a read
    CHECK(test::holder_of(key_of("confirmed")) != victim);
    CHECK(test::holder_of(key_of("confirmed")) != 0);
    // The confirmed lock survived: still exclusive, its owner extends and unlocks it.
    CHECK_FALSE(rival->try_lock({"confirmed", milliseconds{60000}}));
    auto extended = confirmed->extend(milliseconds{60000});
    REQUIRE(extended);
    extended->unlock();
    auto after = rival->try_lock({"confirmed", milliseconds{60000}});
    REQUIRE(after);
    CHECK(*after->fencing_token() > highest_before);
    int lost = 0;
    for (const auto& n : late_names) {
        auto taken = rival->try_lock({n, milliseconds{60000}});
        if (!taken) continue;  // survived: still the first holder's
        ++lost;                 // a second holder now overlaps the first (asynchronous replication)
        CHECK(*taken->fencing_token() > highest_before);  // but its token is higher
        taken->unlock();
    }
    WARN("failover: " << figures.unavailable_calls << " unavailable calls, first answer after "
                      << figures.until_first_success.count() << " ms; " << lost << " of " << late_names.size()
                      << " unconfirmed locks lost");
    after->unlock();
}

namespace {

/// A primary that has a connected replica now (the first test case may have used one up).
std::uint16_t primary_with_replica() {
    for (auto port : test::primary_ports())
        if (test::raw_node(port)->text({"INFO", "replication"}).find("connected_slaves:1") != std::string::npos)
            return port;
    return 0;
}

/// The port of the replica of the primary on `port` (INFO replication's slave0 line).
std::uint16_t replica_of(std::uint16_t port) {
    const std::string info = test::raw_node(port)->text({"INFO", "replication"});
    const auto at = info.find("slave0:ip=");
    REQUIRE(at != std::string::npos);
    const auto p = info.find("port=", at);
    return static_cast<std::uint16_t>(std::stoi(info.substr(p + 5)));
}

}  // namespace

TEST_CASE("redis cluster: locks taken while the replica link is down are lost at the failover, tokens keep rising",
          "[redis][cluster][failover]") {
    const auto options = test::cluster_test_options("cluster-failover-lost");
    auto holder = providers::make_redis_cluster_lock_provider(options);
    auto rival = providers::make_redis_cluster_lock_provider(options);
    const std::uint16_t victim = primary_with_replica();
    REQUIRE(victim != 0);
    CHECK(rival->try_lock({"warm-up", milliseconds{1000}}));  // the rival has read the map
    const auto [names, probe, holder_probe] = names_on(victim, options, "unreplicated-");
    CHECK(holder->try_lock({"warm-up", milliseconds{1000}}));  // the holder has read the map
    // The replica is frozen and its link cut, so it cannot reconnect and catch up before the kill;
    // it is resumed right after (frozen well under cluster-node-timeout, it stays eligible).
    const int replica = test::node_pid(replica_of(victim));
    test::stop_processes({replica});
    CHECK(test::raw_node(victim)->text({"CLIENT", "KILL", "TYPE", "replica"}) == "1");
    std::map<std::string, lock_handle> held;
    std::int64_t highest_before = 0;
    for (const auto& n : names) {
        auto h = holder->try_lock({n, milliseconds{60000}});
        REQUIRE(h);
        highest_before = std::max(highest_before, *h->fencing_token());
        held.emplace(n, std::move(*h));
    }
    REQUIRE(::kill(test::node_pid(victim), SIGKILL) == 0);
    test::continue_processes({replica});
    const auto figures = wait_for_promotion(*rival, probe);
    (void)wait_for_promotion(*holder, holder_probe);
    int lost = 0;
    for (const auto& n : names) {
        auto taken = rival->try_lock({n, milliseconds{60000}});
        if (!taken) continue;
        ++lost;  // two holders now: the first still believes it holds the lock
        CHECK(*taken->fencing_token() > highest_before);  // the newer holder's token is higher
        // The first holder's lease is gone: its extend is refused, not reported as extended.
        CHECK_FALSE(held.at(n).extend(milliseconds{60000}));
        taken->unlock();
    }
    CHECK(lost > 0);
    WARN("failover with the replica link down: " << lost << " of " << names.size() << " locks lost; "
                                                 << figures.unavailable_calls << " unavailable calls, first answer after "
                                                 << figures.until_first_success.count() << " ms");
}
