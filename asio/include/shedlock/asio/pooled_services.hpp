#pragma once
/// \file
/// Blocking backends behind the asynchronous interfaces: every operation runs on a pool of
/// threads that the service owns, and completes on the caller's executor. What SQLite (and any
/// backend without a non-blocking client) takes; the calling thread never waits.

#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_provider.hpp>

#include <boost/asio/thread_pool.hpp>

#include <cstddef>
#include <memory>

namespace shedlock::asio {

/// Threads that make blocking backend calls for the pooled services of one session. Each call
/// holds one thread for its round trip: `threads` calls are in flight at most, the others queue.
class blocking_pool {
public:
    explicit blocking_pool(std::size_t threads);
    /// Waits for the calls in flight (they end within the backend's own timeouts). On one of its
    /// own threads (the last user let go inside a pooled call) it cannot: the threads are then
    /// joined by a thread of their own once they are done.
    ~blocking_pool();
    blocking_pool(const blocking_pool&) = delete;
    blocking_pool& operator=(const blocking_pool&) = delete;

    /// Runs `call` on one of the threads.
    void post(detail::unique_function<void()> call);
    /// The threads, for work posted directly (the asio scheduler's blocking bodies and records).
    boost::asio::thread_pool& pool() noexcept { return *pool_; }
    std::size_t threads() const noexcept { return threads_; }

private:
    std::size_t threads_;
    std::unique_ptr<boost::asio::thread_pool> pool_;
};

/// A lock_provider as a lock_service: start_* runs the provider's operation on the pool.
class pooled_lock_service final : public lock_service {
public:
    /// `executor`: the default completion executor (handlers without one of their own).
    pooled_lock_service(std::shared_ptr<lock_provider> provider, executor_type executor,
                        std::shared_ptr<blocking_pool> pool);

    executor_type get_executor() const override { return executor_; }
    bool supports_fencing() const override { return provider_->supports_fencing(); }
    const shedlock::clock& clock() const noexcept override { return provider_->clock(); }
    std::string describe() const override;
    lock_provider& provider() const noexcept { return *provider_; }

    void start_try_lock(const lock_configuration& config, std::string owner,
                        completion<std::optional<lease>> done) override;
    void start_unlock(lease held, void_completion done) override;
    void start_extend(lease held, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                      completion<std::optional<lease>> done) override;

private:
    std::shared_ptr<lock_provider> provider_;
    executor_type executor_;
    std::shared_ptr<blocking_pool> pool_;
};

/// An idempotency_store as a claim_service, on a pool like pooled_lock_service.
class pooled_claim_service final : public claim_service {
public:
    pooled_claim_service(std::shared_ptr<idempotency_store> store, executor_type executor,
                         std::shared_ptr<blocking_pool> pool);

    executor_type get_executor() const override { return executor_; }
    std::string describe() const override;

    void start_claim(std::string key, std::chrono::milliseconds claim_for, std::optional<std::int64_t> fencing_token,
                     completion<claim_result> done) override;
    void start_finish(idempotency_claim claim, std::string state, std::string result,
                      completion<finish_status> done) override;

private:
    std::shared_ptr<idempotency_store> store_;
    executor_type executor_;
    std::shared_ptr<blocking_pool> pool_;
};

}  // namespace shedlock::asio
