#pragma once
/// \file
/// One backend opened from one URI for asynchronous use: its lock service and claim service,
/// natively non-blocking where the backend registered a driver, pooled otherwise.

#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/backend_session.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/provider_uri.hpp>

#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shedlock::asio {

/// A backend's non-blocking driver: how to open its services for a URI. The blocking session on
/// the same URI is given too (it has checked the table and holds what the statements need).
struct async_registration {
    std::string name;  ///< the backend's registration name ("redis", "postgres")
    std::function<std::unique_ptr<lock_service>(const provider_uri&, backend_session&, lock_service::executor_type)>
        open_locks;
    /// Empty: claims run on the pool.
    std::function<std::unique_ptr<claim_service>(const provider_uri&, backend_session&, claim_service::executor_type)>
        open_claims;
};

/// The non-blocking drivers of this build (filled by register_all_async_drivers(), target
/// shedlock::asio_all). Thread safety: add() and find() may be called concurrently.
class async_registry {
public:
    static async_registry& global();
    /// A second registration under the same name is ignored.
    void add(async_registration driver);
    /// The driver of backend `name`, or nullptr when it has none.
    const async_registration* find(const std::string& name) const;

private:
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<async_registration>> drivers_;
};

/// What opening an asynchronous session may ask for beyond the URI.
struct async_open_request {
    open_request blocking{};       ///< for the blocking session underneath
    std::size_t pool_threads = 4;  ///< threads of the pool for backends (or parts) without a driver
    bool prefer_pool = false;      ///< use the pool even where a driver exists (benchmarks, tests)
};

/// A backend for asynchronous use. Opening it blocks once (it connects and checks the tables, as
/// open_backend does); its operations never block the caller.
///
/// Thread safety: every member may be called concurrently.
class async_session {
public:
    async_session(std::unique_ptr<backend_session> blocking, const async_registration* driver, provider_uri uri,
                  lock_service::executor_type executor, const async_open_request& request);
    ~async_session();

    /// The lock service: the backend's driver, or its lock provider on the pool.
    lock_service& locks();
    std::shared_ptr<lock_service> share_locks();
    /// The claim service: the backend's driver, or its idempotency store on the pool.
    claim_service& claims();
    std::shared_ptr<claim_service> share_claims();
    /// The blocking session on the same URI (run records, the inspector, blocking calls).
    backend_session& blocking() noexcept { return *blocking_; }
    /// True when the lock service is the backend's own non-blocking driver.
    bool native_locks() const noexcept;

private:
    std::shared_ptr<blocking_pool> pool();

    std::unique_ptr<backend_session> blocking_;
    /// A copy: the registry it came from may be gone (a local one) before the session.
    std::optional<async_registration> driver_;
    provider_uri uri_;
    lock_service::executor_type executor_;
    async_open_request request_;
    std::mutex mutex_;
    std::shared_ptr<blocking_pool> pool_;
    std::shared_ptr<lock_service> locks_;
    std::shared_ptr<claim_service> claims_;
};

/// Opens `uri` for asynchronous use on `executor` (the default completion executor and where
/// non-blocking drivers run their I/O). Throws as open_backend.
std::unique_ptr<async_session> open_async_backend(const std::string& uri, lock_service::executor_type executor,
                                                  const async_open_request& request = {},
                                                  const provider_registry& providers = provider_registry::global(),
                                                  const async_registry& drivers = async_registry::global());

}  // namespace shedlock::asio
