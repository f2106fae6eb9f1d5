// The conformance suite against the in-memory reference provider.
#include <conformance.hpp>

#include <shedlock/providers/memory_lock_provider.hpp>

namespace shedlock::conformance {
namespace {

class memory_backend final : public backend {
public:
    std::string name() const override { return "memory"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        return std::make_unique<providers::memory_lock_provider>(clock);
    }
    bool shared_across_processes() const override { return false; }
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<memory_backend>(); }

}  // namespace shedlock::conformance
