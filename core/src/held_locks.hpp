#pragma once
// Per-thread record of the lock names an executor holds on this thread (re-entrancy, lock_assert).

#include <string>
#include <string_view>

namespace shedlock::detail {

/// What lock_assert checks: an executor on this thread holds `name`, or a lock_assert test scope
/// makes the thread count as holding every lock.
bool thread_holds_or_assumes(std::string_view name) noexcept;
/// What re-entrancy checks: an executor on this thread holds `name` (test scopes do not count).
bool executor_holds_on_this_thread(std::string_view name) noexcept;
/// As thread_holds_or_assumes, for any lock.
bool thread_holds_or_assumes_any() noexcept;

/// Marks `name` as held by the current thread for the scope's lifetime.
class held_lock_scope {
public:
    explicit held_lock_scope(std::string name);
    ~held_lock_scope();
    held_lock_scope(const held_lock_scope&) = delete;
    held_lock_scope& operator=(const held_lock_scope&) = delete;

private:
    std::string name_;
};

/// While > 0 the thread counts as holding every lock (lock_assert::test_helper_scope).
int& thread_assume_all_held() noexcept;

}  // namespace shedlock::detail
