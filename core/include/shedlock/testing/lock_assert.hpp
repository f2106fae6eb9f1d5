#pragma once
/// \file
/// Test hook of lock_assert (kept out of <shedlock/lock_assert.hpp>, as leveldb keeps its TEST_*
/// out of DB): for an application's unit tests, never for production code.

#include <shedlock/lock_assert.hpp>

namespace shedlock::lock_assert {

/// For tests of code that calls assert_locked() outside any executor: while an instance lives,
/// the current thread counts as holding every lock.
class test_helper_scope {
public:
    test_helper_scope();
    ~test_helper_scope();
    test_helper_scope(const test_helper_scope&) = delete;
    test_helper_scope& operator=(const test_helper_scope&) = delete;
};

}  // namespace shedlock::lock_assert
