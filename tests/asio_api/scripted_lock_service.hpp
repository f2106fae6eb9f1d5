#pragma once
// A lock_service for the token tests: grants from a memory provider, but each operation can be
// made to fail (a storage_error with a chosen retry advice) or to answer late (an Asio timer),
// so what the token layer does with errors, executors and slow answers shows.

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <chrono>
#include <optional>

namespace shedlock::test {

class scripted_lock_service final : public asio::lock_service {
public:
    explicit scripted_lock_service(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

    /// The next operations fail with this advice (none: they succeed).
    std::optional<retry_advice> fail_with;
    /// Each answer comes this late (on a timer of the executor).
    std::chrono::milliseconds answer_after{0};
    std::atomic<int> unlocks{0};

    executor_type get_executor() const override { return executor_; }
    bool supports_fencing() const override { return true; }
    const shedlock::clock& clock() const noexcept override { return system_clock::instance(); }
    std::string describe() const override { return "scripted"; }

    void start_try_lock(const lock_configuration& config, std::string owner,
                        asio::completion<std::optional<lease>> done) override;
    void start_unlock(lease held, asio::void_completion done) override;
    void start_extend(lease held, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                      asio::completion<std::optional<lease>> done) override;

    providers::memory_lock_provider& storage() noexcept { return storage_; }

private:
    template <typename Fn>
    void answer(Fn fn);

    executor_type executor_;
    providers::memory_lock_provider storage_;
};

}  // namespace shedlock::test
