// The cluster's key space without a server: CRC16 and hash tags as Redis computes them, the key
// each command is routed by, MOVED/ASK replies, and the promise the cluster provider rests on:
// every key of one lock name (lock, fence, run stream) lands in one slot.
#include "redis_cluster_redirect.hpp"
#include "redis_cluster_slots.hpp"
#include "redis_keys.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <set>

using namespace shedlock::providers;
using namespace shedlock::providers::detail;

TEST_CASE("redis cluster slots: CRC16 and key slots match Redis's", "[redis][cluster][unit]") {
    CHECK(crc16_xmodem("123456789") == 0x31C3);  // the XModem check value the Redis spec quotes
    // Values CLUSTER KEYSLOT answers on Redis 7.
    CHECK(key_slot("foo") == 12182);
    CHECK(key_slot("bar") == 5061);
    CHECK(key_slot("{user1000}.following") == key_slot("user1000"));
    CHECK(key_slot("foo{}{bar}") == key_slot("foo{}{bar}"));  // an empty tag hashes the whole key
    CHECK(key_slot("foo{}{bar}") != key_slot("bar"));
    CHECK(key_slot("foo{{bar}}zap") == key_slot("{bar"));
    CHECK(key_slot("foo{bar}{zap}") == key_slot("bar"));
}

TEST_CASE("redis cluster slots: every key of one name shares a slot, names spread over the slots",
          "[redis][cluster][unit]") {
    for (const bool java : {false, true}) {
        redis_options options;
        options.java_compat = java;
        options.env = "prod";
        const redis_keys keys(options);
        std::set<std::uint16_t> slots;
        for (int i = 0; i < 20000; ++i) {
            const std::string name = "task-" + std::to_string(i) + (i % 3 == 0 ? ":settle:20240601" : "");
            const auto slot = key_slot(keys.lock_key(name));
            INFO("name " << name << (java ? " (java_compat)" : ""));
            REQUIRE(key_slot(keys.fence_key(name)) == slot);
            if (!java) REQUIRE(key_slot("shedlock:runs:prod:{" + name + "}") == slot);  // the run stream
            slots.insert(slot);
        }
        CHECK(slots.size() > 10000);  // spread: 20,000 names over 16,384 slots
    }
}

TEST_CASE("redis cluster slots: commands are routed by their key", "[redis][cluster][unit]") {
    CHECK(routing_key({"EVALSHA", "abc", "2", "k1", "k2", "arg"}) == std::optional<std::string_view>("k1"));
    CHECK_FALSE(routing_key({"EVALSHA", "abc", "0", "arg"}));
    CHECK(routing_key({"xadd", "stream", "*"}) == std::optional<std::string_view>("stream"));
    CHECK_FALSE(routing_key({"SCRIPT", "LOAD", "return 1"}));
    CHECK_FALSE(routing_key({"TIME"}));
    CHECK_FALSE(routing_key({"SCAN", "0", "MATCH", "x*"}));
}

namespace {
redisReply error_reply(const char* text) {
    redisReply r{};
    r.type = REDIS_REPLY_ERROR;
    r.str = const_cast<char*>(text);
    r.len = std::strlen(text);
    return r;
}
}  // namespace

TEST_CASE("redis cluster slots: MOVED, ASK, TRYAGAIN and CLUSTERDOWN replies", "[redis][cluster][unit]") {
    auto moved = redirect_of(error_reply("MOVED 3999 127.0.0.1:6381"));
    REQUIRE(moved);
    CHECK(moved->kind == redirect_kind::moved);
    CHECK(moved->slot == 3999);
    CHECK(moved->node.text() == "127.0.0.1:6381");
    auto ask = redirect_of(error_reply("ASK 12 ::1:7000"));
    REQUIRE(ask);
    CHECK(ask->kind == redirect_kind::ask);
    CHECK(ask->node.host == "::1");
    CHECK(redirect_of(error_reply("TRYAGAIN Multiple keys request during rehashing of slot"))->kind ==
          redirect_kind::retry);
    CHECK(redirect_of(error_reply("CLUSTERDOWN The cluster is down"))->kind == redirect_kind::retry);
    CHECK_FALSE(redirect_of(error_reply("NOSCRIPT No matching script")));
    CHECK_FALSE(redirect_of(error_reply("MOVED 99999 127.0.0.1:1")));  // no such slot
    CHECK_FALSE(redirect_of(error_reply("MOVED 1 nohostport")));
}
