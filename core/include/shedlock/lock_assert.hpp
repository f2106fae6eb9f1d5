#pragma once
/// \file
/// Assertions that code runs under a lock (ShedLock's LockAssert).

#include <string>
#include <string_view>

namespace shedlock::lock_assert {

/// Throws lock_state_error unless the current thread runs a task under some lock taken by a
/// locking_task_executor. Put it at the top of a method that must never run unlocked.
void assert_locked();

/// Throws lock_state_error unless the current thread holds the lock `name`.
void assert_locked(std::string_view name);

/// True when the current thread holds the lock `name` through an executor.
bool is_locked(std::string_view name) noexcept;

// For tests of code that calls assert_locked(): test_helper_scope in <shedlock/testing/lock_assert.hpp>.

}  // namespace shedlock::lock_assert
