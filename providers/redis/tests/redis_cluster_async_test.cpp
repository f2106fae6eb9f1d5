// redis-cluster:// for asynchronous callers: the async registry has no non-blocking driver for
// it, so a session takes the pooled adapter (the blocking cluster provider on a thread pool).
#include "redis_cluster_test_support.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/provider_registry.hpp>

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

namespace shedlock::providers {
void register_redis_provider(provider_registry& registry);            // redis_registration.cpp
void register_redis_async_driver(asio::async_registry& registry);  // redis_async_registration.cpp
}

using namespace shedlock;
using std::chrono::milliseconds;

TEST_CASE("redis cluster: asynchronous sessions take the pooled adapter and lock by slot", "[redis][cluster][async]") {
    providers::register_redis_provider(provider_registry::global());
    providers::register_redis_async_driver(asio::async_registry::global());
    const auto options = test::cluster_test_options("cluster-async");
    const std::string uri = test::required_env("SHEDLOCK_TEST_REDIS_CLUSTER_URI") + "?prefix=" + options.node.prefix;
    boost::asio::io_context io;
    auto session = asio::open_async_backend(uri, io.get_executor());
    CHECK_FALSE(session->native_locks());
    auto rival = providers::make_redis_cluster_lock_provider(options);
    for (int i = 0; i < 12; ++i) {
        const std::string name = "async-" + std::to_string(i);
        std::optional<asio::error_code> failure;
        std::optional<asio::lock_handle> held;
        asio::async_try_lock(session->locks(), {name, milliseconds{60000}},
                             [&](asio::error_code ec, std::optional<asio::lock_handle> handle) {
                                 failure = ec;
                                 held = std::move(handle);
                             });
        io.restart();
        io.run();  // returns when the pool has answered
        REQUIRE(failure);
        CHECK_FALSE(*failure);
        REQUIRE(held);
        CHECK(held->fencing_token());
        CHECK_FALSE(rival->try_lock({name, milliseconds{60000}}));  // held on its primary
    }
    io.restart();
    io.run();  // the handles' releases
}
