#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;

TEST_CASE("provider URIs parse into their parts", "[uri]") {
    auto pg = parse_provider_uri("postgresql://app:s%40cret@db.example:5433/locks?table=ops.shedlock&use_db_time=true");
    CHECK(pg.scheme == "postgresql");
    CHECK(pg.user == "app");
    CHECK(pg.password == std::optional<std::string>{"s@cret"});
    CHECK(pg.host == "db.example");
    CHECK(pg.port == std::optional<std::uint16_t>{5433});
    CHECK(pg.path == "locks");
    CHECK(pg.query.at("table") == "ops.shedlock");

    auto sqlite = parse_provider_uri("sqlite:data/locks.db");
    CHECK(sqlite.scheme == "sqlite");
    CHECK(sqlite.path == "data/locks.db");
    CHECK(parse_provider_uri("sqlite:///var/lib/locks.db").path == "/var/lib/locks.db");

    auto redis = parse_provider_uri("redis://:pw@127.0.0.1:6379/2?prefix=shedlock&env=prod");
    CHECK(redis.user.empty());
    CHECK(redis.password == std::optional<std::string>{"pw"});
    CHECK(redis.path == "2");
    CHECK(parse_provider_uri("memory:").scheme == "memory");
    CHECK(parse_provider_uri("MySQL://u@[::1]:3306/db").host == "::1");
}

TEST_CASE("the password never appears in redacted text or errors", "[uri]") {
    auto uri = parse_provider_uri("mysql://root:hunter2@localhost:3306/db?table=t");
    CHECK(uri.redacted() == "mysql://root:***@localhost:3306/db?table=t");
    CHECK_THROWS_WITH(parse_provider_uri("mysql://root:hunter2@localhost:99999/db"),
                      !Contains("hunter2") && Contains("port is not a number from 1 to 65535"));
    uri_options options(uri);
    CHECK_THROWS_WITH(options.finish(), Contains("unknown option \"table\"") && !Contains("hunter2"));
}

TEST_CASE("uri_options reads typed values and rejects unknown keys", "[uri]") {
    auto uri = parse_provider_uri("postgresql://h/db?pool_size=4&connect_timeout=5s&use_db_time=yes&tabel=x");
    uri_options o(uri);
    CHECK(o.integer("pool_size", 1, 64) == std::optional<std::int64_t>{4});
    CHECK(o.duration("connect_timeout") == std::optional<std::chrono::milliseconds>{std::chrono::seconds{5}});
    CHECK(o.flag("use_db_time") == std::optional<bool>{true});
    CHECK_FALSE(o.text("table"));
    CHECK_THROWS_WITH(o.finish(), Contains("unknown option \"tabel\"") && Contains("table"));

    auto bad = parse_provider_uri("postgresql://h/db?pool_size=0&use_db_time=maybe&connect_timeout=60000");
    uri_options b(bad);
    CHECK_THROWS_WITH(b.integer("pool_size", 1, 64), Contains("pool_size=0") && Contains("from 1 to 64"));
    CHECK_THROWS_WITH(b.flag("use_db_time"), Contains("use_db_time=maybe"));
    CHECK_THROWS_WITH(b.duration("connect_timeout"), Contains("connect_timeout=60000"));
}

TEST_CASE("malformed URIs name the problem", "[uri]") {
    CHECK_THROWS_WITH(parse_provider_uri("locks.db"), Contains("no scheme"));
    CHECK_THROWS_WITH(parse_provider_uri("postgresql://h/db?table"), Contains("not key=value"));
    CHECK_THROWS_WITH(parse_provider_uri("postgresql://h/db?a=1&a=2"), Contains("given twice"));
    CHECK_THROWS_WITH(parse_provider_uri("postgresql://h/d%zzb"), Contains("hex digits"));
    CHECK_THROWS_AS(parse_provider_uri("redis://[::1"), configuration_error);
    // Unbracketed IPv6: ::1 was read as host ":" port 1 (an unavailable server, not a config error).
    CHECK_THROWS_WITH(parse_provider_uri("postgresql://u:pw@::1/db"), Contains("IPv6 address needs brackets"));
    CHECK_THROWS_WITH(parse_provider_uri("redis://::1:6379/0"), Contains("IPv6 address needs brackets"));
}

TEST_CASE("a host list is kept whole for its provider to split, and shown as given", "[uri]") {
    const auto uri = parse_provider_uri("postgresql://u:pw@h1:5432,[::1]:5433,h3/db?target_session_attrs=read-write");
    CHECK(uri.host == "h1:5432,[::1]:5433,h3");
    CHECK_FALSE(uri.port);
    CHECK(uri.user == "u");
    CHECK(uri.path == "db");
    CHECK(uri.redacted() == "postgresql://u:***@h1:5432,[::1]:5433,h3/db?target_session_attrs=read-write");
}
