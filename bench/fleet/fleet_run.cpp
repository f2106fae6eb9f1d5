#include "fleet_run.hpp"

#include "fleet_deciders.hpp"

#include <shedlock/lock_handle.hpp>
#include <shedlock/lock_inspector.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace shedlock::bench::fleet {

namespace {

const char* const side_names[2] = {"provider", "raw"};

/// The lock names of one backend's sets: contended per side, and the held ones.
struct name_sets {
    std::string provider, raw, held;
    std::vector<std::string> all(int tasks) const {
        std::vector<std::string> names{warm_up_name};
        for (const auto* set : {&provider, &raw, &held})
            for (int i = 0; i < tasks; ++i) names.push_back(*set + "-" + std::to_string(i));
        return names;
    }
};

std::unique_ptr<server_probe> probe_for(const std::string& backend, const std::string& uri) {
    if (backend == "redis") return make_redis_probe(uri);
    const char* direct = std::getenv(backend_uri_variable("postgres"));
    if (direct == nullptr) throw usage_error("the PgBouncer run reads the server through $SHEDLOCK_TEST_POSTGRES_URI: set it");
    const int pooled_port = backend == "pgbouncer" ? parse_provider_uri(uri).port.value_or(6432) : 0;
    return make_postgres_probe(direct, pooled_port);
}

/// The coordinator's own holds: the warm-up name and every name of the held set, for an hour.
std::vector<lock_handle> hold_names(lock_provider& provider, const name_sets& sets, int tasks) {
    std::vector<lock_handle> held;
    for (int i = -1; i < tasks; ++i) {
        const std::string name = i < 0 ? std::string(warm_up_name) : sets.held + "-" + std::to_string(i);
        if (auto h = provider.try_lock(lock_configuration(name, std::chrono::hours{1}))) held.push_back(std::move(*h));
    }
    return held;
}

}  // namespace

backend_firings run_backend(const fleet_options& options, const std::string& backend) {
    backend_firings firings;
    const char* uri = std::getenv(backend_uri_variable(backend));
    if (uri == nullptr) {
        std::printf("%s: skipped, $%s is not set\n", backend.c_str(), backend_uri_variable(backend));
        return firings;
    }
    const std::string tag = "fleet-" + backend;
    const name_sets sets{tag + "-p", tag + "-r", tag + "-held"};
    const std::string redis_prefix = "fleet" + std::to_string(getpid());
    // The coordinator's holds go to the server directly (the same table or keys).
    decider_setup setup{backend == "redis" ? "redis" : "postgres",
                        backend == "redis" ? uri : std::getenv(backend_uri_variable("postgres")), redis_prefix, 1};
    auto holder = open_fleet_provider(setup);
    inspect(*holder).delete_records(sets.all(options.tasks));  // a run that failed half-way left locks held
    auto probe = probe_for(backend, uri);
    firings.backend = backend;
    firings.server_version = probe->version();
    auto held = hold_names(*holder, sets, options.tasks);
    if (backend == "redis") firings.redis_bytes_per_held_lock = redis_memory_per_lock(uri, redis_prefix, sets.held + "-0");

    worker_plan plan{backend, "provider", options.tasks, options.threads, options.hold_s * 1000, options.body_ms, redis_prefix};
    // Both fleets live for the whole backend, as long-running instances do.
    std::unique_ptr<instance_fleet> fleets[2];
    fleets[0] = std::make_unique<instance_fleet>(plan, options.instances);
    plan.side = "raw";
    fleets[1] = std::make_unique<instance_fleet>(plan, options.instances);
    // A contended set is free again once its last holder's minimum hold has passed.
    wall_time free_at[2] = {};
    const auto fire = [&](firing_kind kind, int side) {
        const std::string& set = kind == firing_kind::refused ? sets.held : side == 0 ? sets.provider : sets.raw;
        auto result = fleets[side]->fire(set, *probe, kind == firing_kind::refused ? wall_time{} : free_at[side]);
        if (kind == firing_kind::contended)
            free_at[side] = result.due + std::chrono::microseconds{static_cast<long long>(result.latency.max_us)} +
                            std::chrono::seconds{options.hold_s} + std::chrono::seconds{1};
        return result;
    };
    // Warm-up, not measured: the records and keys exist, and each provider has seen them.
    for (int side = 0; side < 2; ++side) fire(firing_kind::contended, side), fire(firing_kind::refused, side);
    for (int round = 0; round < options.rounds; ++round) {
        std::fprintf(stderr, "fleet: %s round %d of %d\n", backend.c_str(), round + 1, options.rounds);
        for (int k = 0; k < 2; ++k)
            for (int s = 0; s < 2; ++s) {
                const int side = round % 2 == 0 ? s : 1 - s;  // provider first, then raw first, ...
                firings.of[k][side].push_back(fire(static_cast<firing_kind>(k), side));
            }
    }
    fleets[0].reset(), fleets[1].reset();
    for (auto& h : held) h.unlock();
    inspect(*holder).delete_records(sets.all(options.tasks));
    return firings;
}

}  // namespace shedlock::bench::fleet
