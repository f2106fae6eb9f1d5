#pragma once
/// \file
/// One call from a config file to a ready backend and scheduler: "select the backend by config".

#include <shedlock/config.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/task_registry.hpp>

#include <memory>
#include <string>

namespace shedlock {

/// What an application runs its tasks with. Members are declared in destruction-safe order:
/// the scheduler (destroyed first) uses the run store and the lock provider.
struct configured_app {
    shedlock_config config;
    std::unique_ptr<lock_provider> locks;
    std::unique_ptr<run_store> runs;
    /// Opened (same backend) when a task has an idempotency_key; else null.
    std::unique_ptr<idempotency_store> claims;
    std::unique_ptr<shedlock::scheduler> scheduler;  ///< tasks added, not started
};

/// Loads `path`; opens `[shedlock] provider` (placeholders expanded, e.g.
/// `${SHEDLOCK_PROVIDER:sqlite:/var/lib/app/locks.db}`) as one backend session (open_backend: one
/// pool for its locks, its run store and, when a task has an idempotency_key, its idempotency store)
/// through `registry`, creating missing tables; applies the file to the tasks registered in code (`tasks`, e.g.
/// global_task_registry()) and adds them to a scheduler built with the file's options. Call
/// start() on the result. Throws configuration_error naming the file and line, or storage_error
/// when the backend cannot be reached. The registry must hold the providers (link shedlock::all
/// and call register_all_providers() first).
configured_app open_from_config(const std::string& path, task_registry& tasks,
                                const provider_registry& registry = provider_registry::global());

}  // namespace shedlock
