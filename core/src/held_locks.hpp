#pragma once
// Per-thread record of the lock names an executor holds on this thread (re-entrancy, lock_assert).

#include <string>
#include <string_view>

namespace shedlock::detail {

/// True when the thread holds `name` (or a lock_assert test scope is active).
bool thread_holds(std::string_view name) noexcept;
/// True only when an executor on this thread really holds `name` (re-entrancy).
bool thread_really_holds(std::string_view name) noexcept;
bool thread_holds_any() noexcept;

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
