// The non-blocking Redis lock service: redis_lock_provider's operations (redis_lock_calls) run
// by redis_async_runner on hiredis's asynchronous API.
#include "redis_async_runner.hpp"
#include "redis_keys.hpp"
#include "redis_lock_calls.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lease_timing.hpp>
#include <shedlock/providers/redis_async.hpp>

#include <boost/asio/post.hpp>

namespace shedlock::providers {
namespace {

class redis_async_lock_service final : public shedlock::asio::lock_service {
public:
    redis_async_lock_service(const redis_options& options, executor_type executor, const shedlock::clock& clock)
        : options_(options),
          keys_(options),
          executor_(std::move(executor)),
          clock_(clock),
          runner_(std::make_shared<detail::redis_async_runner>(boost::asio::make_strand(executor_), options)) {}

    ~redis_async_lock_service() override {
        // The runner lives on its strand: it closes its connections there.
        boost::asio::post(runner_->strand(), [runner = runner_] { runner->shutdown(); });
    }

    executor_type get_executor() const override { return executor_; }
    bool supports_fencing() const override { return options_.fencing; }
    const shedlock::clock& clock() const noexcept override { return clock_; }
    std::string describe() const override {
        return "redis, non-blocking hiredis on Asio (up to " + std::to_string(runner_->connections()) +
               " pipelined connections)";
    }

    void start_try_lock(const lock_configuration& config, std::string owner,
                        shedlock::asio::completion<std::optional<lease>> done) override {
        const timestamp now = clock_.now();
        auto call = detail::acquire_call(keys_, options_.fencing, config, owner);
        run(std::move(call), detail::async_retry::when_not_sent,
            [config, owner = std::move(owner), now, fencing = options_.fencing, done = std::move(done)](
                std::exception_ptr failure, std::int64_t token) mutable {
                if (failure) return done(failure, std::nullopt);
                done(nullptr, detail::acquired_lease(config, owner, now, token, fencing));
            });
    }

    void start_unlock(lease held, shedlock::asio::void_completion done) override {
        // As redis_lock_provider::do_unlock: the remaining minimum hold becomes the TTL.
        auto call = detail::unlock_call(keys_, held, remaining_minimum_hold(held, clock_),
                                        minimum_hold_outlasts_lease(held));
        run(std::move(call), detail::async_retry::also_in_doubt,
            [done = std::move(done)](std::exception_ptr failure, std::int64_t) mutable { done(failure); });
    }

    void start_extend(lease held, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                      shedlock::asio::completion<std::optional<lease>> done) override {
        const timestamp now = clock_.now();
        auto call = detail::extend_call(keys_, held, at_most);
        run(std::move(call), detail::async_retry::also_in_doubt,
            [held = std::move(held), now, at_most, minimum_hold, done = std::move(done)](
                std::exception_ptr failure, std::int64_t result) mutable {
                if (failure) return done(failure, std::nullopt);
                done(nullptr, detail::extended_lease(held, now, at_most, minimum_hold, result));
            });
    }

private:
    /// Hands the call to the strand: never completes inside the caller's call.
    void run(detail::lock_script_call call, detail::async_retry retry, detail::script_done done) {
        boost::asio::post(runner_->strand(), [runner = runner_, call = std::move(call), retry,
                                              done = std::move(done)]() mutable {
            runner->run(std::move(call), retry, std::move(done));
        });
    }

    const redis_options options_;
    const detail::redis_keys keys_;
    executor_type executor_;
    const shedlock::clock& clock_;
    std::shared_ptr<detail::redis_async_runner> runner_;
};

}  // namespace

std::unique_ptr<shedlock::asio::lock_service> make_redis_async_lock_service(const redis_options& options,
                                                                            boost::asio::any_io_executor executor,
                                                                            const shedlock::clock& clock) {
    detail::validate_redis_options(options);
    // Discovery and WAIT live in the blocking connection only: the native driver would talk to
    // options.host and skip WAIT. open_async_backend runs such URIs on the pool instead.
    if (!options.sentinels.empty() || options.wait_replicas > 0)
        throw configuration_error("the non-blocking Redis driver does not do Sentinel discovery or wait_replicas; open "
                                  "the URI with open_async_backend (it runs these on the blocking provider in a pool) "
                                  "or wrap make_redis_lock_provider in shedlock::asio::pooled_lock_service");
    return std::make_unique<redis_async_lock_service>(options, std::move(executor), clock);
}

}  // namespace shedlock::providers
