#pragma once
/// \file
/// What a task sees while it runs under a lock.

#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_provider.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace shedlock {

namespace detail {
struct task_context_access;
}

/// Handed to a task body. Safe for concurrent use (the keep-alive timer extends the lock while
/// the task reads its state).
class task_context {
public:
    task_context(std::string lock_name, timestamp scheduled_at)
        : lock_name_(std::move(lock_name)), scheduled_at_(scheduled_at) {}

    const std::string& lock_name() const noexcept { return lock_name_; }
    /// The fencing token of this acquisition; pass it to the protected resource, which rejects
    /// writes carrying a lower token than the last one it accepted. Empty when unsupported.
    std::optional<std::int64_t> fencing_token() const;
    timestamp scheduled_at() const noexcept { return scheduled_at_; }

    /// True once cancellation was requested (lock lost, shutdown): stop at the next safe point.
    bool cancellation_requested() const noexcept { return cancelled_.load(); }
    void request_cancellation() noexcept { cancelled_.store(true); }
    /// True when a keep-alive extension failed: another instance may now hold the lock.
    bool lock_lost() const noexcept { return lock_lost_.load(); }

    /// Extends the held lock to now + at_most, with a minimum hold (lock_at_least_for) of
    /// `minimum_hold` from now. False (and lock_lost) when it could not. A blocking call: in a
    /// coroutine body of shedlock::asio::scheduler, which holds no blocking handle, it returns
    /// false and changes nothing (extensions there are the keep-alive's: keep_alive()).
    bool extend(std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold = std::chrono::milliseconds{0});

    /// Adds `n` to the counter `key` (recorded in the run record: "scanned", "cancelled", ...).
    void count(const std::string& key, std::int64_t n = 1);
    std::map<std::string, std::int64_t> counters() const;
    /// The idempotency claim this run holds (attempt number, previous failure), or nullptr when
    /// the task has no idempotency key. Pass claim()->fencing_token to fenced writes.
    const idempotency_claim* claim() const noexcept { return claim_ ? &*claim_ : nullptr; }
    /// The result text stored with the key when the task returns (shown by `shedlock claims`).
    void set_result(std::string text);
    std::string result() const;

private:
    // The executor's side (detail::task_context_access): not the task's to call.
    friend struct detail::task_context_access;
    void attach(lock_handle* handle);
    /// Detaches and returns the current handle (after extensions) for the final unlock.
    std::optional<lock_handle> detach();
    void mark_lock_lost() noexcept;
    void set_claim(idempotency_claim claim) { claim_ = std::move(claim); }
    /// The token of a lock held without a blocking handle (an asynchronous one).
    void set_fencing_token(std::optional<std::int64_t> token);

    std::string lock_name_;
    timestamp scheduled_at_;
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> lock_lost_{false};
    mutable std::mutex mutex_;
    std::optional<lock_handle> handle_;
    std::optional<std::int64_t> fencing_token_;  // when there is no handle_ (set_fencing_token)
    std::map<std::string, std::int64_t> counters_;
    std::optional<idempotency_claim> claim_;  // set before the body runs, then only read
    std::string result_;
};

}  // namespace shedlock
