#pragma once
/// \file
/// Backends by URI: each provider registers its schemes and what it can open, so applications
/// and the CLI choose a backend from configuration text without naming a concrete provider.

#include <shedlock/backend_session.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/run_store.hpp>
#include <shedlock/time.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shedlock {

/// What opening a backend from a URI may ask for beyond the URI itself.
struct open_request {
    bool create_schema = false;                   ///< create missing tables instead of failing
    run_retention retention{};                    ///< for run stores
    const shedlock::clock* clock = nullptr;       ///< lock times; nullptr: the system clock
    /// Create missing run-record and claims tables, but not the lock table (a daemon's lock
    /// table is the operator's to create; its run records and claims are its own).
    bool create_store_schema = false;
};

/// One backend: its URI schemes and how to open a session on a URI. Empty functions mean "cannot".
struct backend_registration {
    std::string name;                  ///< "postgres", shown in messages
    /// Lowercase; the first is the one messages show. Providers built with CMake take them from
    /// the generated <shedlock/providers/NAME_schemes.hpp> (shedlock_register_provider SCHEMES).
    std::vector<std::string> schemes;
    /// The parts of one session on `uri`: opens the backend's one pool (lazily or at once) and
    /// returns the functions that build the lock provider and, where the backend keeps them, the
    /// run store and the idempotency store over it. Throws configuration_error for a bad option.
    std::function<session_parts(const provider_uri&, const open_request&)> open_session;
    /// The DDL of the backend's tables for this URI, without connecting ("" when it needs none).
    std::function<std::string(const provider_uri&)> schema;
};

/// The backends an application can open by URI.
///
/// Thread safety: add() and the lookups may be called concurrently.
class provider_registry {
public:
    /// The registry the free functions below use; shedlock::register_all_providers() (target
    /// shedlock::all) fills it with every provider of the build.
    static provider_registry& global();

    /// Adds a backend. A second registration under the same name is ignored (registration is
    /// idempotent); a scheme already taken by another backend is a configuration_error.
    void add(backend_registration backend);
    /// Declares a backend that is registered only when a URI first names one of `schemes`: then
    /// `load` runs once (e.g. loads a plug-in module, which calls add()), so a program pays for a
    /// backend's client libraries only when it uses that backend. A `load` that throws is tried
    /// again on the next lookup; one that does not register the schemes is a configuration_error.
    void add_on_demand(std::string name, std::vector<std::string> schemes,
                       std::function<void(provider_registry&)> load);
    /// The backend for the URI's scheme (loading it when it was declared on demand);
    /// configuration_error naming the schemes of this build when none has it.
    const backend_registration& find(const provider_uri& uri) const;
    /// Every registered or on-demand scheme, in registration order ("memory:, sqlite:, ...").
    std::string supported_schemes() const;
    /// The same schemes as a list ("memory", "sqlite", ...).
    std::vector<std::string> schemes() const;

private:
    struct on_demand {
        std::string name;
        std::vector<std::string> schemes;
        std::function<void(provider_registry&)> load;
    };
    const backend_registration* registered(const std::string& scheme) const;
    const on_demand* declared(const std::string& scheme) const;

    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<backend_registration>> backends_;  // stable addresses for find()
    std::vector<std::unique_ptr<on_demand>> on_demand_;
    mutable std::mutex load_mutex_;  // one load at a time; never held with mutex_ around a load
};

/// Opens one session on the backend `uri` names (memory:, sqlite:FILE, postgresql://...,
/// mysql://..., mariadb://..., redis://...): one pool for its locks, run records and claims.
/// Throws configuration_error for a bad URI, option or unknown scheme (naming the schemes of this
/// build); a part that cannot be reached throws storage_error when it is first asked for.
std::unique_ptr<backend_session> open_backend(const std::string& uri, const open_request& request = {},
                                              const provider_registry& registry = provider_registry::global());

/// The lock provider of a new session on `uri` (the session's pool lives as long as it). Throws
/// as open_backend, and storage_error when the backend cannot be reached or its table is missing.
std::unique_ptr<lock_provider> open_lock_provider(const std::string& uri, const open_request& request = {},
                                                  const provider_registry& registry = provider_registry::global());

/// The run-record store of a new session on `uri` (same database or Redis). Throws
/// configuration_error when the backend keeps no run records.
std::unique_ptr<run_store> open_run_store(const std::string& uri, const open_request& request = {},
                                          const provider_registry& registry = provider_registry::global());

/// The idempotency store (claims, transitions, fences) of a new session on `uri` (same database
/// or Redis as its locks). Claim times use `request.clock`. Throws configuration_error when the
/// backend keeps no claims, storage_error as open_lock_provider.
std::unique_ptr<idempotency_store> open_idempotency_store(const std::string& uri, const open_request& request = {},
                                                          const provider_registry& registry = provider_registry::global());

/// The DDL of the lock table, the run-record table and the claims table for `uri`, without
/// connecting; "" when the backend needs no schema.
std::string schema_for(const std::string& uri, const provider_registry& registry = provider_registry::global());

}  // namespace shedlock
