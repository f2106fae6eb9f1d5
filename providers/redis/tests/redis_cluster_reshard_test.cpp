// A resharding of the slot that holds a lock while it is held (the steps redis-cli --cluster
// reshard takes, one slot): during the migration the provider follows ASK to the importing node,
// afterwards MOVED to the new owner; the lock stays exclusive, its owner can extend and unlock,
// and its fencing token keeps increasing.
#include "redis_cluster_slots.hpp"
#include "redis_cluster_test_support.hpp"

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using std::chrono::milliseconds;

namespace {

/// SETSLOT on both ends of a migration, importing first (as redis-cli does).
void begin_migration(std::uint16_t slot, std::uint16_t source, std::uint16_t target) {
    const std::string s = std::to_string(slot);
    REQUIRE(test::raw_node(target)->text({"CLUSTER", "SETSLOT", s, "IMPORTING", test::node_id(source)}) == "OK");
    REQUIRE(test::raw_node(source)->text({"CLUSTER", "SETSLOT", s, "MIGRATING", test::node_id(target)}) == "OK");
}

void move_keys(std::uint16_t source, std::uint16_t target, const std::vector<std::string>& keys) {
    std::vector<std::string> migrate{"MIGRATE", "127.0.0.1", std::to_string(target), "", "0", "5000",
                                     "AUTH", "shedlock-test-pw", "KEYS"};
    migrate.insert(migrate.end(), keys.begin(), keys.end());
    REQUIRE(test::raw_node(source)->text(migrate) == "OK");
}

/// SETSLOT NODE on every primary: the slot is the target's now.
void end_migration(std::uint16_t slot, std::uint16_t target) {
    const std::string id = test::node_id(target);
    for (auto port : test::primary_ports())
        REQUIRE(test::raw_node(port)->text({"CLUSTER", "SETSLOT", std::to_string(slot), "NODE", id}) == "OK");
}

}  // namespace

TEST_CASE("redis cluster: resharding the slot of a held lock keeps it exclusive, extendable and fenced",
          "[redis][cluster][reshard]") {
    const auto options = test::cluster_test_options("cluster-reshard");
    auto holder = providers::make_redis_cluster_lock_provider(options);
    auto rival = providers::make_redis_cluster_lock_provider(options);
    const std::string name = "reshard-me";
    const std::string key = options.node.prefix + ":{" + name + "}";
    const std::uint16_t slot = providers::detail::key_slot(key);

    auto first = holder->try_lock({name, milliseconds{60000}});
    REQUIRE(first);
    first->unlock();
    auto held = holder->try_lock({name, milliseconds{60000}});
    REQUIRE(held);
    REQUIRE(*held->fencing_token() > *first->fencing_token());
    const std::uint16_t source = test::holder_of(key);
    REQUIRE(source != 0);
    std::uint16_t target = 0;
    for (auto port : test::primary_ports())
        if (port != source) target = port;
    REQUIRE(target != 0);

    begin_migration(slot, source, target);
    // Half moved: the acquire script needs both keys, the target has one and answers TRYAGAIN,
    // which is retried (bounded) and then fails as unavailable, safe: nothing was applied.
    move_keys(source, target, {key});
    auto impatient_options = options;
    impatient_options.max_redirects = 2;
    auto impatient = providers::make_redis_cluster_lock_provider(impatient_options);
    try {
        (void)impatient->try_lock({name, milliseconds{60000}});
        FAIL("an acquire with half of its keys migrated was answered");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK(e.advice() == retry_advice::safe);
        CHECK_THAT(e.what(), Contains("TRYAGAIN") && Contains("max_redirects"));
    }
    move_keys(source, target, {key + ":fence"});
    // Mid-migration: the source no longer has the keys and sends clients to the target by ASK.
    CHECK_THAT(test::raw_node(source)->text({"GET", key}), StartsWith("ASK " + std::to_string(slot)));
    CHECK_FALSE(rival->try_lock({name, milliseconds{60000}}));  // followed ASK: the target refuses
    auto extended = held->extend(milliseconds{60000});
    REQUIRE(extended);  // the owner's extend, by ASK too

    end_migration(slot, target);
    CHECK_THAT(test::raw_node(source)->text({"GET", key}), StartsWith("MOVED " + std::to_string(slot)));
    CHECK(test::holder_of(key) == target);
    CHECK_FALSE(rival->try_lock({name, milliseconds{60000}}));  // followed MOVED
    auto again = extended->extend(milliseconds{60000});
    REQUIRE(again);
    again->unlock();
    auto next = rival->try_lock({name, milliseconds{60000}});
    REQUIRE(next);
    CHECK(*next->fencing_token() > *held->fencing_token());
    CHECK(test::holder_of(key) == target);
    next->unlock();
    INFO("slot " << slot << " moved from " << source << " to " << target);
    inspect(*rival).delete_records({name});
}
