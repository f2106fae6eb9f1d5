#include "fleet_deciders.hpp"

#include <shedlock/lock_handle.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <unistd.h>

#include <atomic>
#include <optional>

namespace shedlock::bench::fleet {

namespace {

class provider_decider : public decider {
public:
    provider_decider(std::shared_ptr<lock_provider> provider, const decider_setup& setup)
        : provider_(std::move(provider)), at_most_(setup.at_most), hold_(setup.hold) {}

    bool try_acquire(const std::string& name) override {
        held_ = provider_->try_lock(lock_configuration(name, at_most_, hold_));
        return held_.has_value();
    }
    void release() override {
        held_->unlock();
        held_.reset();
    }

private:
    std::shared_ptr<lock_provider> provider_;
    std::chrono::milliseconds at_most_, hold_;
    std::optional<lock_handle> held_;
};

}  // namespace

std::string fleet_owner(const char* side, int decider_number) {
    return std::string("fleet:") + side + ":" + std::to_string(getpid()) + ":" + std::to_string(decider_number);
}

std::shared_ptr<lock_provider> open_fleet_provider(const decider_setup& setup) {
    const auto uri = parse_provider_uri(setup.uri);
    if (setup.backend == "redis") {
        auto options = providers::redis_options::from_uri(uri);
        options.prefix = setup.redis_prefix;
        options.pool_size = static_cast<std::size_t>(setup.threads);
        return providers::make_redis_lock_provider(options);
    }
    auto options = providers::postgres_options::from_uri(uri);
    options.table = fleet_table;
    options.create_schema_if_missing = true;
    options.pool_size = static_cast<std::size_t>(setup.threads);
    return providers::make_postgres_lock_provider(options);
}

decider_factory provider_deciders(const decider_setup& setup) {
    auto provider = open_fleet_provider(setup);
    return [provider, setup] { return std::make_unique<provider_decider>(provider, setup); };
}

decider_factory raw_deciders(const decider_setup& setup) {
    return setup.backend == "redis" ? raw_redis_deciders(setup) : raw_postgres_deciders(setup);
}

}  // namespace shedlock::bench::fleet
