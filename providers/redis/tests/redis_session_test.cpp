// One backend session, one pool: the lock provider, run store and idempotency store that a
// session on a redis:// URI hands out share one redis_pool. Counted from this process's own
// established TCP connections to the server (its socket descriptors matched in /proc/<pid>/net/tcp*,
// which lists the whole network namespace: other test programs running at the same time open and
// close connections to the same server), not from the server's client list.
#include "redis_test_support.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/backend_session.hpp>
#include <shedlock/provider_registry.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

namespace shedlock::providers {
void register_redis_provider(provider_registry& registry);  // redis_registration.cpp
}

using namespace shedlock;
using std::chrono::milliseconds;

namespace {

/// This process's established TCP connections to the server port `port`.
int established_to(std::uint16_t port) { return static_cast<int>(test::tcp_client_ports(::getpid(), port).size()); }

}  // namespace

TEST_CASE("redis session: locks, run records and claims share one pool", "[redis][session]") {
    const std::string uri = test::required_env("SHEDLOCK_TEST_REDIS_URI");
    const auto port = test::redis_test_options().port;
    provider_registry registry;
    providers::register_redis_provider(registry);
    const int before = established_to(port);
    const auto session = open_backend(uri + "?pool_size=1&prefix=" + test::unique_prefix("session"), {}, registry);
    REQUIRE(session->has_runs());
    REQUIRE(session->has_claims());
    CHECK(session->runs().tasks().empty());
    CHECK(session->claims().list().empty());
    auto held = session->locks().try_lock({"session-pool", milliseconds{60000}});
    CHECK(held);
    held.reset();
    CHECK(session->inspector().list_locks().size() == 1);
    // pool_size=1, one caller at a time: one connection for all three parts (a pool per part: 3).
    CHECK(established_to(port) - before == 1);
    inspect(session->locks()).delete_records({"session-pool"});
}
