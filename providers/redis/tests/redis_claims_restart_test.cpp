// Claims survive a restart of the real redis-server when Redis persists them. The test server runs
// without persistence (--save '' --appendonly no), so the test asks for one snapshot (SAVE)
// before it stops the server, and removes the snapshot after the restart so that the other
// restart tests still see a server without persistence. Runs alone, in the serial program.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"
#include "redis_test_support.hpp"
#include "server_env.hpp"

#include <shedlock/providers/redis_idempotency_store.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

using namespace shedlock;
using namespace shedlock::providers;

namespace {

class persisted_redis_backend final : public conformance::idempotency_backend {
public:
    persisted_redis_backend() : options_(test::redis_test_options()) {
        options_.prefix = "claims-restart-" + std::to_string(::getpid());
    }
    std::string name() const override { return "redis"; }
    std::unique_ptr<idempotency_store> make_store(const shedlock::clock& clock) override {
        return make_redis_idempotency_store(options_, clock);
    }
    const redis_options& options() const { return options_; }

private:
    redis_options options_;
};

}  // namespace

TEST_CASE("redis idempotency store: claims survive a restart of a persisting server", "[redis][idempotency][restart]") {
    persisted_redis_backend backend;
    const std::filesystem::path snapshot = test::required_env("SHEDLOCK_TEST_REDIS_DIR");
    conformance::check_claims_survive_restart(backend, [&] {
        test::raw_redis(backend.options()).text({"SAVE"});
        test::control_server("SHEDLOCK_TEST_REDIS", "halt");
        test::control_server("SHEDLOCK_TEST_REDIS", "resume");
        std::filesystem::remove(snapshot / "dump.rdb");
    });
}
