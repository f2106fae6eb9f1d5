#pragma once
/// \file
/// An asynchronous lock service behind the blocking interface: for the CLI, the blocking
/// scheduler and any caller of lock_provider when a backend is natively asynchronous only.

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lock_provider.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <thread>

namespace shedlock::asio {

/// A lock_provider whose operations start on an asynchronous lock_service and wait for its
/// completion. The service runs on an io_context of this provider's own, on one thread, so that a
/// blocking caller never waits for an event loop it is itself running.
///
/// Thread safety: as every lock_provider, safe for concurrent use.
class blocking_lock_provider final : public lock_provider {
public:
    /// Builds the service on the provider's own executor.
    using service_factory = std::function<std::unique_ptr<lock_service>(lock_service::executor_type)>;

    explicit blocking_lock_provider(const service_factory& make_service);
    /// Stops the io_context thread once the operations in flight completed.
    ~blocking_lock_provider() override;

    bool supports_fencing() const override { return service_->supports_fencing(); }
    lock_service& service() noexcept { return *service_; }

private:
    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override;
    void do_unlock(const lease& held) override;
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds minimum_hold) override;

    boost::asio::io_context io_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
    std::unique_ptr<lock_service> service_;
    std::thread thread_;
};

}  // namespace shedlock::asio
