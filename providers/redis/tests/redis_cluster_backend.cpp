// The conformance suite on the Redis Cluster that cluster_test.sh starts
// ($SHEDLOCK_TEST_REDIS_CLUSTER_URI): every lock call routed by slot.
#include "redis_cluster_test_support.hpp"

#include <conformance.hpp>

namespace shedlock::conformance {
namespace {

class redis_cluster_backend final : public backend {
public:
    // One prefix per run, chosen in the parent: forked children share the parent's keys.
    redis_cluster_backend() : options_(test::cluster_test_options("conformance-cluster")) {}

    std::string name() const override { return "redis-cluster"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        return providers::make_redis_cluster_lock_provider(options_, clock);
    }
    bool honours_injected_clock() const override { return false; }
    bool tokens_start_at_one() const override { return false; }  // never below the server clock in µs
    bool deletes_expired_records() const override { return false; }

private:
    providers::redis_cluster_options options_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<redis_cluster_backend>(); }

}  // namespace shedlock::conformance
