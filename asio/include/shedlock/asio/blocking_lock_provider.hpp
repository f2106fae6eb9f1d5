#pragma once
/// \file
/// An asynchronous lock service behind the blocking interface: for the CLI, the blocking
/// scheduler and any caller of lock_provider when a backend is natively asynchronous only.

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lock_provider.hpp>

#include <functional>
#include <memory>
#include <thread>

namespace shedlock::asio {

/// A lock_provider whose operations start on an asynchronous lock_service and wait for its
/// completion. The service runs on an io_context of this provider's own, on one thread, so that a
/// blocking caller never waits for an event loop it is itself running.
///
/// On that thread (inside a completion of the service) a blocking call would wait for itself: it
/// throws configuration_error instead; call the service asynchronously there. The provider may be
/// destroyed there: its thread then finishes the operations in flight and ends by itself.
///
/// Thread safety: as every lock_provider, safe for concurrent use.
class blocking_lock_provider final : public lock_provider {
public:
    /// Builds the service on the provider's own executor.
    using service_factory = std::function<std::unique_ptr<lock_service>(lock_service::executor_type)>;

    explicit blocking_lock_provider(const service_factory& make_service);
    /// Lets the io_context thread end once the operations in flight completed, and waits for it
    /// (unless called on that thread).
    ~blocking_lock_provider() override;

    bool supports_fencing() const override;
    lock_service& service() noexcept;

private:
    struct runtime;

    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override;
    void do_unlock(const lease& held) override;
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds minimum_hold) override;
    /// configuration_error when called on the service's own thread.
    void refuse_own_thread(const char* operation) const;

    std::shared_ptr<runtime> runtime_;  // shared with the thread, which may outlive the provider
    std::thread thread_;
};

}  // namespace shedlock::asio
