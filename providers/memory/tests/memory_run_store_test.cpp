// The memory run store against the run-store conformance suite.
#include "run_store_conformance.hpp"

#include <shedlock/memory_run_store.hpp>

#include <catch2/catch.hpp>

namespace shedlock::conformance {
namespace {

class memory_run_store_backend final : public run_store_backend {
public:
    std::string name() const override { return "memory"; }
    std::unique_ptr<run_store> make_store(const run_retention& retention) override {
        return std::make_unique<memory_run_store>(retention);
    }
};

run_record finished(int i, timestamp at) {
    run_record r;
    r.task = "ring";
    r.scheduled_at = timestamp{std::chrono::milliseconds{i}};
    r.started_at = r.finished_at = at;
    return r;
}

}  // namespace

// The ring overwrites its oldest slot once full; max_age then removes records from the middle.
TEST_CASE("memory run store: a wrapped ring keeps its order through max_age", "[memory_run_store]") {
    memory_run_store store(run_retention{3, std::chrono::hours{1}});
    const auto now = system_clock::instance().now();
    for (int i = 0; i < 4; ++i) store.append(finished(i, now));  // wrapped: 1 2 3
    store.append(finished(4, now - std::chrono::hours{2}));       // 2 3 4, and 4 is too old: 2 3
    store.append(finished(5, now));                                // 2 3 5
    store.append(finished(6, now));                                // 3 5 6
    const auto runs = store.last_runs("ring", 10);
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].scheduled_at == timestamp{std::chrono::milliseconds{6}});
    CHECK(runs[1].scheduled_at == timestamp{std::chrono::milliseconds{5}});
    CHECK(runs[2].scheduled_at == timestamp{std::chrono::milliseconds{3}});
    REQUIRE(store.all().size() == 3);
    CHECK(store.all().front().scheduled_at == timestamp{std::chrono::milliseconds{3}});
}

std::unique_ptr<run_store_backend> make_run_store_backend() { return std::make_unique<memory_run_store_backend>(); }

}  // namespace shedlock::conformance
