// The cluster's key space without a server: CRC16 and hash tags as Redis computes them, the key
// each command is routed by, MOVED/ASK replies, and the promise the cluster provider rests on:
// every key of one lock name (lock, fence, run stream) lands in one slot.
#include "redis_cluster_redirect.hpp"
#include "redis_cluster_slots.hpp"
#include "redis_keys.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
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

namespace {
/// A CLUSTER SLOTS reply built by hand, as a hostile or broken node could send it.
struct fake_slots_reply {
    std::deque<redisReply> nodes;
    std::deque<std::vector<redisReply*>> children;
    std::deque<std::string> texts;

    redisReply* integer(long long v) {
        auto& r = nodes.emplace_back();
        r.type = REDIS_REPLY_INTEGER;
        r.integer = v;
        return &r;
    }
    redisReply* string(std::string text) {
        auto& stored = texts.emplace_back(std::move(text));
        auto& r = nodes.emplace_back();
        r.type = REDIS_REPLY_STRING;
        r.str = stored.data();
        r.len = stored.size();
        return &r;
    }
    redisReply* array(std::vector<redisReply*> items) {
        auto& stored = children.emplace_back(std::move(items));
        auto& r = nodes.emplace_back();
        r.type = REDIS_REPLY_ARRAY;
        r.element = stored.data();
        r.elements = stored.size();
        return &r;
    }
    redisReply* range(long long first, long long last, std::string host, long long port) {
        return array({integer(first), integer(last), array({string(std::move(host)), integer(port)})});
    }
};

bool slots_refused(const redisReply& reply) {
    try {
        (void)parse_cluster_slots(reply, {"127.0.0.1", 7000}, "node 127.0.0.1:7000");
        return false;
    } catch (const shedlock::storage_error& e) {
        return e.category() == shedlock::storage_category::invalid_data;
    }
}
}  // namespace

TEST_CASE("redis cluster slots: a hostile CLUSTER SLOTS reply is refused, never wrapped into another node",
          "[redis][cluster][unit]") {
    fake_slots_reply f;
    const auto good = parse_cluster_slots(*f.array({f.range(0, 8191, "127.0.0.1", 7000), f.range(8192, 16383, "", 7001)}),
                                          {"127.0.0.1", 7000}, "node");
    CHECK(good.covered() == cluster_slot_count);
    CHECK(good.primaries.at(1).address.text() == "127.0.0.1:7001");
    // Port 0 with an empty host is how Redis lists a primary whose address it lost ("noaddr",
    // seen on a real cluster when a primary came back with a new node ID): its slots are
    // unserved, the rest of the map still routes.
    const auto noaddr = parse_cluster_slots(
        *f.array({f.range(0, 8191, "127.0.0.1", 7000), f.range(8192, 16383, "", 0)}), {"127.0.0.1", 7000}, "node");
    CHECK(noaddr.covered() == 8192);
    CHECK(noaddr.primaries.size() == 1);
    // A port outside 1..65535 (70000 would wrap to 4464, another process's port).
    CHECK(slots_refused(*f.array({f.range(0, 16383, "127.0.0.1", 70000)})));
    CHECK(slots_refused(*f.array({f.range(0, 16383, "127.0.0.1", -1)})));
    // A host with control bytes, a NUL, or longer than a DNS name.
    CHECK(slots_refused(*f.array({f.range(0, 16383, std::string("10.0.0.1\r\nX", 11), 7000)})));
    CHECK(slots_refused(*f.array({f.range(0, 16383, std::string("10.0.0.1\0evil", 13), 7000)})));
    CHECK(slots_refused(*f.array({f.range(0, 16383, std::string(300, 'h'), 7000)})));
    // Two primaries claiming one slot; ranges outside 0..16383.
    CHECK(slots_refused(*f.array({f.range(0, 9000, "127.0.0.1", 7000), f.range(8000, 16383, "127.0.0.1", 7001)})));
    CHECK(slots_refused(*f.array({f.range(0, 16384, "127.0.0.1", 7000)})));
    CHECK(slots_refused(*f.array({f.range(-1, 10, "127.0.0.1", 7000)})));
    // More ranges than slots, each its own "primary" (40000 would overflow the int16 owner index).
    std::vector<redisReply*> many;
    for (int i = 0; i < 40000; ++i) many.push_back(f.range(0, 0, "h" + std::to_string(i), 7000));
    CHECK(slots_refused(*f.array(std::move(many))));
    // A MOVED whose address carries control bytes is not a redirect.
    CHECK_FALSE(redirect_of(error_reply("MOVED 1 evil\x01host:7000")));
    CHECK_FALSE(redirect_of(error_reply("MOVED 1 :7000")));
}
