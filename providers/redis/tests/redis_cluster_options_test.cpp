// redis-cluster:// URIs: seeds, the redis:// options, and refusals that name the value and fix.
#include "redis_test_support.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_cluster.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;

namespace {
redis_cluster_options parse(const std::string& text) { return redis_cluster_options::from_uri(parse_provider_uri(text)); }
}  // namespace

TEST_CASE("redis cluster options: seeds, credentials and the redis:// options", "[redis][cluster][unit]") {
    const auto o = parse("redis-cluster://app:s3cret@10.0.0.1:7000,node2,10.0.0.3:7002?prefix=jobs&pool_size=2&"
                         "max_redirects=8&command_timeout=500ms");
    REQUIRE(o.seeds.size() == 3);
    CHECK(o.seeds[0].host == "10.0.0.1");
    CHECK(o.seeds[0].port == 7000);
    CHECK(o.seeds[1].host == "node2");
    CHECK(o.seeds[1].port == 6379);
    CHECK(o.seeds[2].host == "10.0.0.3");
    CHECK(o.seeds[2].port == 7002);
    CHECK(o.node.user == "app");
    CHECK(o.node.password == std::optional<std::string>("s3cret"));
    CHECK(o.node.prefix == "jobs");
    CHECK(o.node.pool_size == 2);
    CHECK(o.node.command_timeout == std::chrono::milliseconds{500});
    CHECK(o.max_redirects == 8);
    const auto one = parse("redis-cluster://:pw@127.0.0.1:63820/0");
    REQUIRE(one.seeds.size() == 1);
    CHECK(one.seeds[0].port == 63820);
    CHECK(one.max_redirects == 5);
}

TEST_CASE("redis cluster options: bad values are refused, naming them and the fix, never the password",
          "[redis][cluster][unit]") {
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000/3"),
                      Contains("only database 0") && Contains("/3") && !Contains("s3cret"));
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000,h2:0"), Contains("1 to 65535") && !Contains("s3cret"));
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000,h2:x1,h3:7002"),
                      Contains("\"h2:x1\"") && Contains("1 to 65535") && !Contains("s3cret"));
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000,,h2:7001"), Contains("empty seed"));
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000?max_redirects=17"),
                      Contains("max_redirects") && !Contains("s3cret"));
    // The redis:// parser's messages name the URI the user wrote, redacted.
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000,h2:7001?pool_size=0"),
                      Contains("redis-cluster://") && Contains("h1:7000,h2") && Contains("pool_size") &&
                          !Contains("s3cret"));
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000?prefix=a%7Bb"), Contains("braces") && !Contains("s3cret"));
    CHECK_THROWS_WITH(parse("redis-cluster://h1:7000?bogus=1"), Contains("bogus"));
    CHECK_THROWS_AS(redis_cluster_options::from_uri(parse_provider_uri("redis://h1:7000")), configuration_error);
}

TEST_CASE("redis cluster options: IPv6 seeds bracketed, at most 16 seeds, each once and the library checks them too",
          "[redis][cluster][unit]") {
    const auto v6 = parse("redis-cluster://[::1]:7000,[fe80::2]:7001,[::1]");
    REQUIRE(v6.seeds.size() == 3);
    CHECK(v6.seeds[0].host == "::1");
    CHECK(v6.seeds[0].port == 7000);
    CHECK(v6.seeds[1].host == "fe80::2");
    CHECK(v6.seeds[2].port == 6379);
    // "::1:7000": is 7000 the port or part of the address? Refused, naming the brackets.
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@::1:7000,::1:7001"),
                      Contains("without brackets") && Contains("[::1]:7000") && !Contains("s3cret"));
    CHECK_THROWS_WITH(parse("redis-cluster://[::1:7000,h2:1"), Contains("[IPv6]:port"));
    CHECK_THROWS_WITH(parse("redis-cluster://[::1]x,h2:1"), Contains("[IPv6]:port"));
    CHECK_THROWS_WITH(parse("redis-cluster://[]:1,h2:1"), Contains("[IPv6]:port"));
    CHECK_THROWS_WITH(parse("redis-cluster://h1:7000,:7001"), Contains("no host"));
    CHECK_THROWS_WITH(parse("redis-cluster://:s3cret@h1:7000,h1:7000"),
                      Contains("h1:7000 (listed twice)") && !Contains("s3cret"));
    std::string seventeen = "redis-cluster://";
    for (int i = 0; i < 17; ++i) seventeen += (i ? "," : "") + std::string("h:") + std::to_string(7000 + i);
    CHECK_THROWS_WITH(parse(seventeen), Contains("17 given") && Contains("at most 16"));

    // Options built in code are held to the same rules before any connection.
    redis_cluster_options o;
    o.seeds = {{"127.0.0.1", 7000}};
    for (int bad : {0, -1, 17, 1000}) {
        o.max_redirects = bad;
        CHECK_THROWS_WITH(make_redis_cluster_lock_provider(o), Contains("max_redirects=" + std::to_string(bad)));
    }
    o.max_redirects = 5;
    o.seeds = {{"127.0.0.1", 0}};
    CHECK_THROWS_AS(make_redis_cluster_lock_provider(o), configuration_error);
    o.seeds = {{"", 7000}};
    CHECK_THROWS_AS(make_redis_cluster_lock_provider(o), configuration_error);
    o.seeds.clear();
    CHECK_THROWS_WITH(make_redis_cluster_lock_provider(o), Contains("at least one"));
}

TEST_CASE("redis cluster options: a plain redis-server as the only seed is a configuration error naming redis://",
          "[redis][cluster]") {
    // The shared test server runs without cluster-enabled: no retry mends that, the URI is wrong.
    redis_cluster_options o;
    o.node = test::redis_test_options();
    o.seeds = {{o.node.host, o.node.port}};
    const auto provider = make_redis_cluster_lock_provider(o);
    try {
        (void)provider->try_lock({"adv-not-a-cluster", std::chrono::milliseconds{1000}});
        FAIL("a lock on a non-cluster seed was answered");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::misconfigured);
        CHECK_THAT(e.what(), Contains("not a Redis Cluster node") && Contains("redis://") &&
                                 Contains(o.node.host + ":" + std::to_string(o.node.port)));
        if (o.node.password) CHECK_THAT(e.what(), !Contains(*o.node.password));
    }
}
