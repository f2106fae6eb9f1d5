// Redis Sentinel (issue 24) on a topology of the test's own: a primary, a replica and three
// sentinels that sentinel.sh starts (ctest runs `sentinel.sh with` this program), never the
// shared test Redis. Covers the URI, discovery (a sentinel that is down, a master name the
// sentinels do not know, a stale answer that points at a replica), wait_replicas and secrets.
#include "redis_test_support.hpp"

#include "fake_server.hpp"

#include <process_freeze.hpp>

#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>

#include <catch2/catch.hpp>

#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

namespace shedlock::test {
namespace {

using providers::redis_options;

constexpr const char* data_password = "shedlock-test-pw";
constexpr const char* sentinel_password = "sentinel-test-pw";

redis_options sentinel_options(const std::string& extra = "") {
    auto options = providers::redis_options_from_uri(parse_provider_uri(required_env("SHEDLOCK_TEST_SENTINEL_URI") + extra));
    options.prefix = unique_prefix("sentinel");
    return options;
}

std::string port_of(const char* variable) { return required_env(variable); }

redis_options direct(const char* port_variable) {
    return providers::redis_options_from_uri(
        parse_provider_uri("redis://:" + std::string(data_password) + "@127.0.0.1:" + port_of(port_variable) + "/0"));
}

redis_options first_sentinel() {
    redis_options o;
    o.port = static_cast<std::uint16_t>(std::stoi(required_env("SHEDLOCK_TEST_SENTINEL_PORTS")));
    o.password = sentinel_password;
    return o;
}

lock_configuration config_for(const std::string& name) {
    return lock_configuration(name, std::chrono::seconds(30), std::chrono::milliseconds(0));
}

/// The message of the storage_error `call` throws (fails the test when it throws nothing).
template <typename Fn>
storage_error storage_failure(Fn&& call) {
    try {
        call();
    } catch (const storage_error& e) {
        return e;
    }
    FAIL("expected a storage_error");
    throw std::logic_error("unreachable");
}

void check_no_secret(const std::string& text) {
    CHECK(text.find(data_password) == std::string::npos);
    CHECK(text.find(sentinel_password) == std::string::npos);
}

std::string config_error(const std::string& uri) {
    try {
        (void)providers::redis_options_from_uri(parse_provider_uri(uri));
    } catch (const configuration_error& e) {
        check_no_secret(e.what());
        return e.what();
    }
    FAIL("expected a configuration_error for " << uri);
    return {};
}

pid_t replica_pid() {
    std::ifstream in(required_env("SHEDLOCK_TEST_SENTINEL_DIR") + "/replica.pid");
    pid_t pid = 0;
    in >> pid;
    REQUIRE(pid > 0);
    return pid;
}

/// ROLE of a data node, on a new connection (the sentinels kill the old ones at a failover);
/// empty while it does not answer.
std::string role_of(const char* port_variable) {
    try {
        raw_redis node(direct(port_variable));
        const auto role = node.strings({"ROLE"});
        return role.empty() ? std::string() : role[0];
    } catch (const std::runtime_error&) {
        return {};
    }
}

}  // namespace

TEST_CASE("a redis-sentinel:// URI names the sentinels, the master, the db and both passwords", "[redis][sentinel]") {
    const auto o = providers::redis_options_from_uri(parse_provider_uri(
        "redis-sentinel://app:pw1@s1:26379,[::1]:26400,s3/mymaster?db=3&sentinel_password=pw2&sentinel_user=mon&wait_replicas=1"));
    REQUIRE(o.sentinels.size() == 3);
    CHECK(o.sentinels[0].host == "s1");
    CHECK(o.sentinels[1].host == "::1");
    CHECK(o.sentinels[1].port == 26400);
    CHECK(o.sentinels[2].port == 26379);
    CHECK(o.sentinel_master == "mymaster");
    CHECK(o.db == 3);
    CHECK(o.user == "app");
    CHECK(o.password == "pw1");
    CHECK(o.sentinel_user == "mon");
    CHECK(o.sentinel_password == "pw2");
    CHECK(o.wait_replicas == 1);
    const auto shown = parse_provider_uri("redis-sentinel://:pw1@s1:1,s2:2/m?sentinel_password=pw2").redacted();
    CHECK(shown.find("pw1") == std::string::npos);
    CHECK(shown.find("pw2") == std::string::npos);
}

TEST_CASE("bad redis-sentinel:// URIs are configuration errors naming the value", "[redis][sentinel]") {
    const std::string secret = "?sentinel_password=" + std::string(sentinel_password);
    CHECK_THAT(config_error("redis-sentinel://:" + std::string(data_password) + "@s1:26379,s2:0/m" + secret),
               Catch::Contains("sentinel port \"0\""));
    CHECK_THAT(config_error("redis-sentinel://s1:26379,s2:x/m"), Catch::Contains("\"x\""));
    CHECK_THAT(config_error("redis-sentinel://s1:26379,,s2/m"), Catch::Contains("empty sentinel host"));
    CHECK_THAT(config_error("redis-sentinel://s1:26379,s2:26379" + secret), Catch::Contains("master name (missing)"));
    CHECK_THAT(config_error("redis-sentinel://s1,s2/bad%20name"), Catch::Contains("master name \"bad name\""));
    CHECK_THAT(config_error("redis-sentinel://s1,s1:26379/m"), Catch::Contains("listed twice"));
    std::string many = "redis-sentinel://";
    for (int i = 0; i < 17; ++i) many += (i ? "," : "") + std::string("h") + std::to_string(i);
    CHECK_THAT(config_error(many + "/m"), Catch::Contains("17 given"));
    CHECK_THAT(config_error("redis-sentinel://s1,s2/m?db=1&db=2"), Catch::Contains("twice"));
    CHECK_THAT(config_error("redis-sentinel://s1,s2/m?wait_replicas=1&wait_timeout=2s"), Catch::Contains("wait_timeout=2000ms"));
    CHECK_THAT(config_error("redis-sentinel://s1,s2/m?wait_replicas=99"), Catch::Contains("wait_replicas"));
    CHECK_THAT(config_error("redis://:" + std::string(data_password) + "@h1,h2:6379/0"), Catch::Contains("redis-sentinel://"));
    CHECK_THAT(config_error("redis://h1/0?sentinel_password=x"), Catch::Contains("sentinel_password"));
    redis_options master_only;
    master_only.sentinel_master = "m";
    CHECK_THROWS_WITH(providers::make_redis_lock_provider(master_only), Catch::Contains("without sentinels"));
}

TEST_CASE("discovery finds the primary, skipping a sentinel that is down", "[redis][sentinel]") {
    auto options = sentinel_options();
    options.sentinels.insert(options.sentinels.begin(), providers::redis_sentinel_address{"127.0.0.1", 26389});
    auto provider = providers::make_redis_lock_provider(options);
    auto held = provider->try_lock(config_for("discovered"));
    REQUIRE(held);
    // The key is on the primary the sentinels name: a direct provider on that port sees it held.
    auto on_primary = direct("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT");
    on_primary.prefix = options.prefix;
    CHECK_FALSE(providers::make_redis_lock_provider(on_primary)->try_lock(config_for("discovered")));
    const auto notes = inspect(*provider).topology();
    std::string all;
    for (const auto& n : notes) all += n.text + "\n";
    CHECK_THAT(all, Catch::Contains("role: primary"));
    CHECK_THAT(all, Catch::Contains("127.0.0.1:" + port_of("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT")));
    CHECK_THAT(all, Catch::Contains("3 of 4 sentinels reachable"));
    CHECK_THAT(all, Catch::Contains("1 replica(s), asynchronous"));
    CHECK_THAT(all, Catch::Contains("persistence: none"));
    check_no_secret(all);
}

TEST_CASE("a frozen sentinel (accepts, never answers) is skipped within connect_timeout", "[redis][sentinel]") {
    auto options = sentinel_options("&connect_timeout=500ms");
    std::ifstream in(required_env("SHEDLOCK_TEST_SENTINEL_DIR") + "/sentinel0.pid");
    pid_t first = 0;
    in >> first;
    REQUIRE(first > 0);
    auto provider = providers::make_redis_lock_provider(options);
    stop_processes({first});
    std::optional<lock_handle> held;
    try {
        held = provider->try_lock(config_for("past-frozen"));
    } catch (...) {
        continue_processes({first});
        throw;
    }
    continue_processes({first});
    CHECK(held);
}

/// A hostile sentinel: reads the request, answers `head`, then one byte of `trickle` every 50 ms
/// (each read well within connect_timeout) until the client hangs up.
std::function<void(int)> answering_sentinel(std::string head, std::string trickle = "") {
    return [head, trickle](int fd) {
        char request[4096];
        if (::recv(fd, request, sizeof request, 0) <= 0 || !write_all(fd, head)) return;
        for (std::size_t i = 0; !trickle.empty(); i = (i + 1) % trickle.size()) {
            if (!write_all(fd, trickle.substr(i, 1))) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));  // pacing, not synchronisation
        }
    };
}

// Before the fix each read had its own timeout, so a sentinel trickling its answer held every
// new connection forever (a sentinel answering each step just in time took one connect_timeout
// per step).
TEST_CASE("a sentinel that trickles its answer is skipped within one connect_timeout", "[redis][sentinel]") {
    fake_server trickling(answering_sentinel("*2\r\n$1000000\r\n", "a"));
    auto options = sentinel_options("&connect_timeout=300ms");
    options.sentinels.insert(options.sentinels.begin(), providers::redis_sentinel_address{"127.0.0.1", trickling.port()});
    CHECK(providers::make_redis_lock_provider(options)->try_lock(config_for("past-trickling")));
    options.sentinels.resize(1);
    const auto e = storage_failure([&] { (void)providers::make_redis_lock_provider(options)->try_lock(config_for("t")); });
    CHECK(e.category() == storage_category::unavailable);
    CHECK_THAT(e.what(), Catch::Contains("127.0.0.1:" + std::to_string(trickling.port())));
}

TEST_CASE("a sentinel answer whose host is empty, over-long or holds control bytes is not an address",
          "[redis][sentinel]") {
    const std::string port = "$" + std::to_string(port_of("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT").size()) + "\r\n" +
                             port_of("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT") + "\r\n";
    const std::string nul_host("127.0.0.1\0evil", 14);
    for (const std::string& host : {std::string(), std::string(300, 'a'), std::string("127.0.0.1\r\nX"), nul_host}) {
        fake_server sentinel(answering_sentinel("*2\r\n$" + std::to_string(host.size()) + "\r\n" + host + "\r\n" + port));
        redis_options options = sentinel_options();
        options.sentinels = {{"127.0.0.1", sentinel.port()}};
        options.sentinel_password.reset();
        const auto e = storage_failure([&] { (void)providers::make_redis_lock_provider(options)->try_lock(config_for("odd")); });
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), Catch::Contains("answered something other than an address") && !Catch::Contains("evil") &&
                                 !Catch::Contains(std::string(300, 'a')));
    }
}

TEST_CASE("a master name the sentinels do not know is a misconfiguration naming it", "[redis][sentinel]") {
    auto options = sentinel_options();
    options.sentinel_master = "no-such-master";
    auto provider = providers::make_redis_lock_provider(options);
    const auto e = storage_failure([&] { (void)provider->try_lock(config_for("unknown")); });
    CHECK(e.category() == storage_category::misconfigured);
    CHECK_THAT(e.what(), Catch::Contains("\"no-such-master\"") && Catch::Contains("SENTINEL MASTERS"));
    check_no_secret(e.what());
}

TEST_CASE("a sentinel answer that points at a replica is refused by ROLE, safe to retry", "[redis][sentinel]") {
    // A real stale answer: the first sentinel monitors, under another name, the replica's address.
    raw_redis sentinel(first_sentinel());
    const std::string stale = unique_prefix("stale");
    REQUIRE(sentinel.text({"SENTINEL", "MONITOR", stale, "127.0.0.1", port_of("SHEDLOCK_TEST_SENTINEL_REPLICA_PORT"), "2"}) == "OK");
    auto options = sentinel_options();
    options.sentinel_master = stale;
    auto provider = providers::make_redis_lock_provider(options);
    const auto e = storage_failure([&] { (void)provider->try_lock(config_for("stale")); });
    CHECK(sentinel.text({"SENTINEL", "REMOVE", stale}) == "OK");
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::safe);
    CHECK_THAT(e.what(), Catch::Contains("ROLE \"slave\""));
    check_no_secret(e.what());
}

TEST_CASE("wait_replicas=1: an acquisition the replica acknowledged is held, and on the replica", "[redis][sentinel]") {
    auto options = sentinel_options("&wait_replicas=1");
    auto provider = providers::make_redis_lock_provider(options);
    auto held = provider->try_lock(config_for("replicated"));
    REQUIRE(held);
    raw_redis replica(direct("SHEDLOCK_TEST_SENTINEL_REPLICA_PORT"));
    // WAIT returned after the replica acknowledged the write: it has the key now.
    CHECK(replica.text({"EXISTS", options.prefix + ":{replicated}"}) == "1");
}

TEST_CASE("wait_replicas shortfall: a frozen replica makes the acquisition not held and the key gone", "[redis][sentinel]") {
    auto options = sentinel_options("&wait_replicas=1&wait_timeout=300ms");
    auto provider = providers::make_redis_lock_provider(options);
    const pid_t replica = replica_pid();
    stop_processes({replica});
    const auto e = storage_failure([&] { (void)provider->try_lock(config_for("shortfall")); });
    continue_processes({replica});
    CHECK(e.category() == storage_category::unavailable);
    CHECK(e.advice() == retry_advice::safe);
    CHECK_THAT(e.what(), Catch::Contains("wait_replicas=1") && Catch::Contains("reached 0") &&
                             Catch::Contains("not held"));
    CHECK_THAT(e.what(), !Catch::Contains("held elsewhere"));
    check_no_secret(e.what());
    raw_redis primary(direct("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT"));
    CHECK(primary.text({"EXISTS", options.prefix + ":{shortfall}"}) == "0");
}

TEST_CASE("wait_replicas: an extension the frozen replica did not acknowledge is an error, the lock stays held",
          "[redis][sentinel]") {
    auto options = sentinel_options("&wait_replicas=1&wait_timeout=300ms");
    auto provider = providers::make_redis_lock_provider(options);
    auto held = provider->try_lock(config_for("extended"));
    REQUIRE(held);
    const pid_t replica = replica_pid();
    stop_processes({replica});
    const auto e = storage_failure([&] { (void)held->extend(std::chrono::seconds(60)); });
    continue_processes({replica});
    CHECK(e.category() == storage_category::unavailable);
    CHECK_THAT(e.what(), Catch::Contains("extension") && Catch::Contains("wait_replicas=1") &&
                             Catch::Contains("previous lock_until"));
    CHECK(held->active());  // still ours: unlock works
    held->unlock();
    raw_redis primary(direct("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT"));
    CHECK(primary.text({"EXISTS", options.prefix + ":{extended}"}) == "0");
}

TEST_CASE("an ACL user without +role still locks through Sentinel (the ROLE check is skipped)", "[redis][sentinel]") {
    raw_redis primary(direct("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT"));
    const std::string user = unique_prefix("norole");
    REQUIRE(primary.text({"ACL", "SETUSER", user, "on", ">norole-pw", "~*", "+@all", "-role"}) == "OK");
    auto options = sentinel_options();
    options.user = user;
    options.password = "norole-pw";
    auto provider = providers::make_redis_lock_provider(options);
    auto held = provider->try_lock(config_for("norole"));
    CHECK(held);
    held.reset();
    CHECK(primary.text({"ACL", "DELUSER", user}) == "1");
}

TEST_CASE("sentinel_password_env: the sentinels' password from a variable", "[redis][sentinel]") {
    ::setenv("SHEDLOCK_TEST_SENTINEL_PW", sentinel_password, 1);
    std::string uri = required_env("SHEDLOCK_TEST_SENTINEL_URI");
    uri = uri.substr(0, uri.find("sentinel_password=")) + "sentinel_password_env=SHEDLOCK_TEST_SENTINEL_PW";
    auto options = providers::redis_options_from_uri(parse_provider_uri(uri));
    ::unsetenv("SHEDLOCK_TEST_SENTINEL_PW");
    options.prefix = unique_prefix("sentinel");
    auto provider = providers::make_redis_lock_provider(options);
    CHECK(provider->try_lock(config_for("from-env")));
}

TEST_CASE("wrong sentinel_password: no sentinel answers, and no secret is shown", "[redis][sentinel]") {
    auto options = sentinel_options();
    options.sentinel_password = "wrong-" + std::string(sentinel_password);
    auto provider = providers::make_redis_lock_provider(options);
    const auto e = storage_failure([&] { (void)provider->try_lock(config_for("denied")); });
    CHECK(e.category() == storage_category::unavailable);
    CHECK_THAT(e.what(), Catch::Contains("refused sentinel_user/sentinel_password"));
    check_no_secret(e.what());
}

// Last in the file: it swaps the roles of the topology's two data nodes.
TEST_CASE("after a failover the same provider continues on the new primary (the pool rediscovers)",
          "[redis][sentinel]") {
    auto options = sentinel_options();
    options.pool_size = 1;  // the one pooled connection is the one the failover leaves behind
    auto provider = providers::make_redis_lock_provider(options);
    auto before = provider->try_lock(config_for("across"));
    REQUIRE(before);
    const auto token_before = *before->fencing_token();
    before->unlock();
    raw_redis sentinel(first_sentinel());
    REQUIRE(sentinel.text({"SENTINEL", "FAILOVER", "shedlock-primary"}) == "OK");
    const std::string new_port = port_of("SHEDLOCK_TEST_SENTINEL_REPLICA_PORT");
    // Wait (deadline 30 s: a failover takes a few seconds) until the sentinel names the replica,
    // the replica is master and the old primary has turned replica: the pooled connection was
    // to the old primary (now a replica, and the sentinels kill its clients).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    bool swapped = false;
    while (!swapped && std::chrono::steady_clock::now() < deadline) {
        const auto named = sentinel.strings({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "shedlock-primary"});
        swapped = named.size() == 2 && named[1] == new_port &&
                  role_of("SHEDLOCK_TEST_SENTINEL_REPLICA_PORT") == "master" &&
                  role_of("SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT") == "slave";
        if (!swapped) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling, not synchronisation
    }
    REQUIRE(swapped);
    // The old connection hears READONLY (or was reset): it is dropped, and the call runs once
    // more on a new connection that asks the sentinels. At most one call may fail on the way,
    // as unavailable and never as held elsewhere.
    std::optional<lock_handle> after;
    try {
        after = provider->try_lock(config_for("across"));
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        after = provider->try_lock(config_for("across"));
    }
    REQUIRE(after);
    CHECK(*after->fencing_token() > token_before);
    raw_redis promoted(direct("SHEDLOCK_TEST_SENTINEL_REPLICA_PORT"));
    CHECK(promoted.text({"EXISTS", options.prefix + ":{across}"}) == "1");
}

}  // namespace shedlock::test
