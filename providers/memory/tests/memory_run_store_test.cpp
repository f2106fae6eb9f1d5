// The memory run store against the run-store conformance suite.
#include "run_store_conformance.hpp"

#include <shedlock/memory_run_store.hpp>

namespace shedlock::conformance {
namespace {

class memory_run_store_backend final : public run_store_backend {
public:
    std::string name() const override { return "memory"; }
    std::unique_ptr<run_store> make_store(const run_retention& retention) override {
        return std::make_unique<memory_run_store>(retention);
    }
};

}  // namespace

std::unique_ptr<run_store_backend> make_run_store_backend() { return std::make_unique<memory_run_store_backend>(); }

}  // namespace shedlock::conformance
