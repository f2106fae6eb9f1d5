#pragma once
// The control of the frozen-backend test: a lock service that waits on the calling thread for
// another service's answer, as a driver that made a blocking round trip on the executor would.
// The ticker must catch it (frozen_backend_test.cpp, "control" case).

#include <shedlock/asio/lock_service.hpp>

#include <boost/asio/post.hpp>

#include <future>
#include <memory>
#include <utility>

namespace shedlock::test {

class waiting_lock_service final : public asio::lock_service {
public:
    explicit waiting_lock_service(asio::lock_service& inner) : inner_(inner) {}

    executor_type get_executor() const override { return inner_.get_executor(); }
    bool supports_fencing() const override { return inner_.supports_fencing(); }
    const shedlock::clock& clock() const noexcept override { return inner_.clock(); }
    std::string describe() const override { return inner_.describe() + ", each call waited for on the calling thread"; }

    void start_try_lock(const lock_configuration& config, std::string owner,
                        asio::completion<std::optional<lease>> done) override {
        wait_then_post(std::move(done), [&](auto set) { inner_.start_try_lock(config, std::move(owner), std::move(set)); });
    }
    void start_unlock(lease held, asio::void_completion done) override {
        auto result = std::make_shared<std::promise<std::exception_ptr>>();
        auto answer = result->get_future();
        inner_.start_unlock(std::move(held), [result](std::exception_ptr failure) { result->set_value(std::move(failure)); });
        boost::asio::post(get_executor(), [done = std::move(done), failure = answer.get()]() mutable { done(failure); });
    }
    void start_extend(lease held, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                      asio::completion<std::optional<lease>> done) override {
        wait_then_post(std::move(done), [&](auto set) {
            inner_.start_extend(std::move(held), at_most, minimum_hold, std::move(set));
        });
    }

private:
    /// Starts the inner operation, BLOCKS until it answers, then completes `done` on the executor.
    template <typename Start>
    void wait_then_post(asio::completion<std::optional<lease>> done, Start start) {
        using answer_type = std::pair<std::exception_ptr, std::optional<lease>>;
        auto result = std::make_shared<std::promise<answer_type>>();
        auto answer = result->get_future();
        start([result](std::exception_ptr failure, std::optional<lease> value) {
            result->set_value({std::move(failure), std::move(value)});
        });
        boost::asio::post(get_executor(), [done = std::move(done), a = answer.get()]() mutable {
            done(a.first, std::move(a.second));
        });
    }

    asio::lock_service& inner_;
};

}  // namespace shedlock::test
