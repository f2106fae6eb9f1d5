// The memory idempotency store against the idempotency conformance suite, and memory: by URI.
#include "idempotency_conformance.hpp"

#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/provider_registry.hpp>

#include <catch2/catch.hpp>

namespace shedlock::conformance {
namespace {

/// One store for the whole backend (memory is the storage): make_store hands out views of it
/// that use the caller's clock.
class memory_idempotency_backend final : public idempotency_backend {
public:
    std::string name() const override { return "memory"; }
    std::unique_ptr<idempotency_store> make_store(const shedlock::clock& clock) override {
        return std::make_unique<memory_idempotency_store>(clock);
    }
    bool shared_across_processes() const override { return false; }
};

}  // namespace

std::unique_ptr<idempotency_backend> make_idempotency_backend() {
    return std::make_unique<memory_idempotency_backend>();
}

}  // namespace shedlock::conformance

namespace shedlock::providers {
void register_memory_provider(provider_registry& registry);  // defined by the provider (no header)
}

TEST_CASE("memory idempotency store: opened by URI", "[memory][idempotency]") {
    shedlock::provider_registry registry;
    shedlock::providers::register_memory_provider(registry);
    auto store = shedlock::open_idempotency_store("memory:", {}, registry);
    REQUIRE(store);
    CHECK(store->claim("k", std::chrono::minutes{1}).status == shedlock::claim_status::claimed);
    CHECK_THROWS_AS(shedlock::open_idempotency_store("memory:?table=x", {}, registry), shedlock::configuration_error);
}
