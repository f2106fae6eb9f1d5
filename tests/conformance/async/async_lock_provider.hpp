#pragma once
// The conformance suite's view of a backend's asynchronous interface: a lock_provider whose
// try_lock/unlock/extend go through the public token API of a lock_service (async_try_lock,
// lock_handle::async_unlock / async_extend), so that every case written against lock_provider
// runs unchanged against the asynchronous interface. It keeps the asynchronous handles the API
// returns and unlocks and extends through them, never through the service's start_* calls.

#include "async_calls.hpp"
#include "async_interface.hpp"

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lock_provider.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace shedlock::conformance {

/// A lock_provider on `inner`'s asynchronous service. The service runs on an io_context of the
/// adapter's own, run by one dedicated thread; the test threads only wait for completions.
/// Listing and operator releases (inspector()) are the blocking provider's: the pooled service's
/// own provider, or a second provider of the backend beside a native service.
///
/// Thread safety: as every lock_provider (the handle table is guarded by a mutex).
class async_lock_provider final : public lock_provider {
public:
    async_lock_provider(backend& inner, const shedlock::clock& clock, interface_kind kind);
    /// Releases what is still held (in the background), then stops the io_context thread.
    ~async_lock_provider() override;

    bool supports_fencing() const override { return service_->supports_fencing(); }
    lock_inspector* inspector() noexcept override { return inspection_->inspector(); }

private:
    using handle_key = std::pair<std::string, std::string>;  ///< lock name, owner token

    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override;
    void do_unlock(const lease& held) override;
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds minimum_hold) override;

    /// Stores `handle` and returns a copy of its lease for the blocking handle.
    lease remember(asio::lock_handle handle);
    /// Takes the handle granted for `held` out of the table; throws when there is none.
    asio::lock_handle take(const lease& held);
    void stop_thread();

    boost::asio::io_context io_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
    std::unique_ptr<asio::lock_service> service_;
    std::unique_ptr<lock_provider> own_inspection_;  ///< beside a native service only
    lock_provider* inspection_ = nullptr;
    std::unique_ptr<async_calls> calls_;
    std::mutex mutex_;
    std::map<handle_key, asio::lock_handle> handles_;
    std::thread thread_;
};

}  // namespace shedlock::conformance
