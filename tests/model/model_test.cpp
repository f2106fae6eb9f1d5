// Model-based test: random operations from several owners against this program's provider,
// compared step by step with the reference model (lock_model.hpp). Linked into every provider's
// conformance program.
#include "model_run.hpp"
#include "model_settings.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

using namespace shedlock;
using namespace shedlock::conformance;

TEST_CASE("model: random operations from several owners agree with the reference model", "[conformance][model]") {
    const auto settings = model::settings_from_env();
    // Printed before the run, not only on failure: a crash or a hang must name its seed too.
    std::cout << "model test on " << current_backend().name() << ": seed " << settings.seed << ", "
              << settings.steps << " steps ("
              << (settings.seed_from_env ? "from " : "replay: ") << "SHEDLOCK_MODEL_SEED=" << settings.seed << ")"
              << std::endl;
    fixture f;
    const auto start = std::chrono::steady_clock::now();
    model::model_run run(f, settings.seed, static_cast<std::size_t>(settings.log_lines));
    try {
        run.execute(settings.steps);
    } catch (const model::model_mismatch& e) {
        FAIL(e.what());
    }
    const auto& c = run.stats();
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    std::cout << "model test on " << current_backend().name() << ": " << settings.steps << " steps in "
              << took.count() << " ms; acquired " << c.acquired << ", refused " << c.refused << ", unlocked "
              << c.unlocked << ", extended " << c.extended << ", not extended " << c.not_extended
              << ", reuse refused " << c.reused << ", force-released " << c.forced << ", listings " << c.listings
              << ", undecided by timing " << c.undecided << std::endl;
    CHECK(c.acquired > 0);
    CHECK(c.refused > 0);
}
