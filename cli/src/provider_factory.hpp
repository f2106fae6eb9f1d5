#pragma once
// A provider URI in, a lock provider out, through the provider registry: every provider of the
// build is declared there and loaded from its plug-in module when a URI first names it
// (provider_modules.hpp).

#include <shedlock/lock_provider.hpp>
#include <shedlock/provider_registry.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::cli {

struct open_options {
    bool create_schema = false;  ///< create missing tables (lock, run records, claims) instead of failing
    bool create_store_schema = false;  ///< create missing run-record and claims tables only (daemon)
    run_retention retention{};         ///< for the session's run store
};

/// One backend session on a URI (one pool) and its lock provider: every part a command needs
/// (run store, claims) comes from `session`.
struct opened_provider {
    std::shared_ptr<backend_session> session;
    std::shared_ptr<lock_provider> provider;  ///< session->share_locks()
    std::string kind;     ///< memory, sqlite, postgresql, mysql, redis
    std::string display;  ///< the URI, password redacted
    /// Environment variables holding the URI's secrets (its password_env): removed from the
    /// environment of every command the CLI starts.
    std::vector<std::string> secret_env;
};

/// Opens a session on the backend named by `uri` (memory:, sqlite:..., postgresql://...,
/// mysql://..., mariadb://..., redis://...) and its lock provider. Throws configuration_error for
/// a bad URI or option, storage_error when the backend cannot be reached or its table is missing.
opened_provider open_provider(const std::string& uri, const open_options& options = {});

/// The registry with every provider of this build declared (loaded on first use).
provider_registry& registry();

/// The DDL of the lock table for `uri`, without connecting; empty when the backend has no schema.
std::string schema_for(const std::string& uri);

/// The schemes this build supports, for messages: "memory, sqlite, ...".
std::string supported_schemes();

}  // namespace shedlock::cli
