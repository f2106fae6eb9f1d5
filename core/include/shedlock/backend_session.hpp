#pragma once
/// \file
/// One backend opened from one URI: the lock provider, its inspector and, where the backend keeps
/// them, the run store and the idempotency store, all over ONE connection pool (or connection).

#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/run_store.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace shedlock {

/// What a backend's registration builds a session from. Each function opens one part over the
/// session's shared pool (captured by the function, so every part keeps the pool alive); an empty
/// function means the backend does not offer that part (etcd or ZooKeeper keep no run records).
struct session_parts {
    std::function<std::unique_ptr<lock_provider>()> locks;
    std::function<std::unique_ptr<run_store>()> runs;
    std::function<std::unique_ptr<idempotency_store>()> claims;
    /// The DDL of the backend's tables for this URI ("" or empty: it needs none).
    std::function<std::string()> schema;
};

/// A backend opened once per URI (open_backend, provider_registry.hpp). Parts are opened on first
/// use and then shared: a program that takes the locks, the run store and the claims of one URI
/// holds one pool, not three. A part handed out with share_*() keeps the pool alive after the
/// session is gone.
///
/// Failure: opening a part may throw storage_error (unreachable, table missing) the first time it
/// is asked for; the next call tries again. runs()/claims() of a backend without them throw
/// configuration_error naming the alternative.
///
/// Thread safety: every member may be called concurrently.
class backend_session {
public:
    /// `backend_name` ("postgres") and `display` (the redacted URI) are for messages.
    backend_session(std::string backend_name, std::string display, session_parts parts);
    backend_session(const backend_session&) = delete;
    backend_session& operator=(const backend_session&) = delete;

    /// The lock provider; configuration_error when the backend has none.
    lock_provider& locks() { return *share_locks(); }
    std::shared_ptr<lock_provider> share_locks();
    /// The lock provider's inspector (unsupported_operation_error when it has none).
    lock_inspector& inspector() { return inspect(locks()); }

    /// Whether the backend keeps run records / claims.
    bool has_runs() const noexcept { return static_cast<bool>(parts_.runs); }
    bool has_claims() const noexcept { return static_cast<bool>(parts_.claims); }
    run_store& runs() { return *share_runs(); }
    std::shared_ptr<run_store> share_runs();
    idempotency_store& claims() { return *share_claims(); }
    std::shared_ptr<idempotency_store> share_claims();

    /// The DDL of the backend's tables, without connecting; "" when it needs none.
    std::string schema() const { return parts_.schema ? parts_.schema() : std::string{}; }

    /// A further lock provider / run store / idempotency store over this session's pool, owned by the
    /// caller (what open_lock_provider() and its siblings return).
    std::unique_ptr<lock_provider> make_locks() const;
    std::unique_ptr<run_store> make_runs() const;
    std::unique_ptr<idempotency_store> make_claims() const;

    const std::string& backend_name() const noexcept { return backend_name_; }
    const std::string& display() const noexcept { return display_; }

private:
    std::string backend_name_;
    std::string display_;
    session_parts parts_;
    std::mutex mutex_;
    std::shared_ptr<lock_provider> locks_;
    std::shared_ptr<run_store> runs_;
    std::shared_ptr<idempotency_store> claims_;
};

}  // namespace shedlock
