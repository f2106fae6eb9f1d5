// The conformance suite against the test redis-server ($SHEDLOCK_TEST_REDIS_URI). TTLs run on the
// server's clock, so the suite waits real (short) time instead of moving the injected clock.
#include "redis_test_support.hpp"

#include <conformance.hpp>

#if SHEDLOCK_TEST_ASYNC_DRIVER
#include <shedlock/providers/redis_async.hpp>
#endif

namespace shedlock::conformance {
namespace {

class redis_backend final : public backend {
public:
    // One prefix per run, chosen in the parent: forked children share the parent's keys.
    redis_backend() : options_(test::redis_test_options()) { options_.prefix = test::unique_prefix("conformance"); }

    std::string name() const override { return "redis"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        return providers::make_redis_lock_provider(options_, clock);
    }
    bool honours_injected_clock() const override { return false; }
    bool tokens_start_at_one() const override { return false; }  // never below the server clock in µs
    bool deletes_expired_records() const override { return false; }
#if SHEDLOCK_TEST_ASYNC_DRIVER
    // The asynchronous runs (SHEDLOCK_CONFORMANCE_INTERFACE) on the non-blocking driver, same keys.
    std::unique_ptr<asio::lock_service> make_async_service(const shedlock::clock& clock,
                                                           asio::lock_service::executor_type executor) override {
        // Sentinel URIs (the conformance_redis_sentinel lane) run on the pool, as
        // open_async_backend runs them: the default adapter.
        if (!options_.sentinels.empty()) return backend::make_async_service(clock, std::move(executor));
        return providers::make_redis_async_lock_service(options_, std::move(executor), clock);
    }
#endif

private:
    providers::redis_options options_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<redis_backend>(); }

}  // namespace shedlock::conformance
