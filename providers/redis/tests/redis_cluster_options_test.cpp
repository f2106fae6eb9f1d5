// redis-cluster:// URIs: seeds, the redis:// options, and refusals that name the value and fix.
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
