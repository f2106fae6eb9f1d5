// The Redis idempotency store on the real test server: the idempotency conformance suite (each
// backend under a prefix of its own, whose claims it resets at the end) and its keys.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "redis_test_support.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_idempotency_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>

using namespace shedlock;
using namespace shedlock::providers;
using namespace std::chrono_literals;

namespace {

/// Every store of one backend under the prefix `claims-<pid>-<n>`; its claims are reset when the
/// backend goes (by the process that made it, never a forked child).
class redis_claims_backend final : public conformance::idempotency_backend {
public:
    redis_claims_backend() : options_(test::redis_test_options()) {
        static std::atomic<int> counter{0};
        options_.prefix = "claims-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
    }
    ~redis_claims_backend() override {
        if (::getpid() != creator_) return;
        try {
            auto store = make_redis_idempotency_store(options_);
            for (const auto& record : store->list()) (void)store->reset(record.key);
        } catch (...) {  // a failed cleanup must not hide the test's own result
        }
    }
    redis_claims_backend(const redis_claims_backend&) = delete;
    redis_claims_backend& operator=(const redis_claims_backend&) = delete;

    std::string name() const override { return "redis"; }
    std::unique_ptr<idempotency_store> make_store(const shedlock::clock& clock) override {
        auto options = options_;
        options.pool_size = 8;
        return make_redis_idempotency_store(options, clock);
    }
    const redis_options& options() const { return options_; }

private:
    redis_options options_;
    pid_t creator_ = ::getpid();
};

/// CLIENT KILLs this process's connections to the server (as an operator or a restart would),
/// from a connection of its own, and waits until they are closed.
void kill_own_redis_connections() {
    const auto options = test::redis_test_options();
    const auto ports = test::tcp_client_ports(::getpid(), options.port);
    REQUIRE_FALSE(ports.empty());
    test::raw_redis redis(options);
    for (int port : ports)
        CHECK(redis.text({"CLIENT", "KILL", "ADDR", options.host + ":" + std::to_string(port)}) == "1");  // killed one
    REQUIRE(test::wait_until_closed(::getpid(), options.port, ports));
}

}  // namespace

namespace shedlock::conformance {

std::unique_ptr<idempotency_backend> make_idempotency_backend() { return std::make_unique<redis_claims_backend>(); }

}  // namespace shedlock::conformance

TEST_CASE("redis idempotency store: one hash per key, the index, no TTL", "[redis][idempotency]") {
    redis_claims_backend backend;
    auto store = backend.make_store(system_clock::instance());
    const auto c = store->claim("settle:2024-06-01", 10min, 9);
    REQUIRE(c.status == claim_status::claimed);
    REQUIRE(store->complete(*c.claim, "3 rows") == finish_status::finished);
    REQUIRE(store->fence("ledger", 9));
    test::raw_redis redis(backend.options());
    const std::string base = backend.options().prefix + ":claims:";
    CHECK(redis.text({"HGET", base + "{settle:2024-06-01}", "state"}) == "done");
    CHECK(redis.text({"HGET", base + "{settle:2024-06-01}", "result"}) == "3 rows");
    CHECK(redis.text({"PTTL", base + "{settle:2024-06-01}"}) == "-1");
    CHECK(redis.text({"SISMEMBER", base + "index", "settle:2024-06-01"}) == "1");
    CHECK(redis.text({"GET", base + "fence:{ledger}"}) == "9");
    CHECK(store->reset("settle:2024-06-01"));
    CHECK(redis.text({"EXISTS", base + "{settle:2024-06-01}"}) == "0");
    CHECK(redis.text({"SISMEMBER", base + "index", "settle:2024-06-01"}) == "0");
}

TEST_CASE("redis idempotency store: fence compares int64 tokens exactly, beyond 2^53", "[redis][idempotency]") {
    redis_claims_backend backend;
    auto store = backend.make_store(system_clock::instance());
    CHECK(store->fence("big", 9'007'199'254'740'993));   // 2^53 + 1
    CHECK_FALSE(store->fence("big", 9'007'199'254'740'992));  // 2^53: equal as a double
    CHECK(store->fence("big", 9'007'199'254'740'994));
    CHECK(store->fence("neg", -10));
    CHECK_FALSE(store->fence("neg", -11));
    CHECK(store->fence("neg", -9));
    CHECK(store->fence("neg", 0));
}

TEST_CASE("redis idempotency store: complete and fail after CLIENT KILL are recorded", "[redis][idempotency]") {
    redis_claims_backend backend;
    conformance::check_finish_after_connections_killed(backend, kill_own_redis_connections);
}
