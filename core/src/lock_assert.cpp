#include "held_locks.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_assert.hpp>
#include <shedlock/testing/lock_assert.hpp>

namespace shedlock::lock_assert {

void assert_locked() {
    if (!detail::thread_holds_or_assumes_any())
        throw lock_state_error(
            "assert_locked: this code must run under a lock, but the current thread holds none; "
            "run it through locking_task_executor (or a scheduled task)");
}

void assert_locked(std::string_view name) {
    if (!detail::thread_holds_or_assumes(name))
        throw lock_state_error("assert_locked: the current thread does not hold lock \"" + std::string(name) +
                               "\"; run this code through locking_task_executor with that lock name");
}

bool is_locked(std::string_view name) noexcept { return detail::thread_holds_or_assumes(name); }

test_helper_scope::test_helper_scope() { ++detail::thread_assume_all_held(); }
test_helper_scope::~test_helper_scope() { --detail::thread_assume_all_held(); }

}  // namespace shedlock::lock_assert
