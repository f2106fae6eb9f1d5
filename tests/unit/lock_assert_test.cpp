#include <shedlock/error.hpp>
#include <shedlock/lock_assert.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/testing/lock_assert.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;

TEST_CASE("assert_locked throws outside a locked task and passes inside", "[lock_assert]") {
    CHECK_THROWS_AS(lock_assert::assert_locked(), lock_state_error);
    CHECK_THROWS_AS(lock_assert::assert_locked("job"), lock_state_error);
    providers::memory_lock_provider provider;
    locking_task_executor executor(provider);
    bool checked = false;
    auto result = executor.execute(
        [&](task_context&) {
            lock_assert::assert_locked();
            lock_assert::assert_locked("job");
            CHECK_THROWS_AS(lock_assert::assert_locked("other"), lock_state_error);
            checked = true;
        },
        {"job", std::chrono::seconds{10}});
    CHECK(result.outcome == run_outcome::succeeded);
    CHECK(checked);
    CHECK_FALSE(lock_assert::is_locked("job"));  // released with the task
}

TEST_CASE("test_helper_scope makes assert_locked pass in unit tests", "[lock_assert]") {
    {
        lock_assert::test_helper_scope scope;
        CHECK_NOTHROW(lock_assert::assert_locked());
        CHECK_NOTHROW(lock_assert::assert_locked("anything"));
    }
    CHECK_THROWS_AS(lock_assert::assert_locked(), lock_state_error);
}
