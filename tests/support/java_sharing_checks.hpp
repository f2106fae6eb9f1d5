#pragma once
// Checks of a lock table shared with Java ShedLock, run by the PostgreSQL and MariaDB tests with
// their own `Java` instance (Java ShedLock's db-time statements through the database's C client):
// bool lock(name), void unlock(name).
#include <shedlock/lock_provider.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace shedlock::test {

/// Java's lock, then `cycles` times unlock and re-lock at once; how many re-locks were refused.
template <typename Java>
int refused_java_relocks(Java& java, const std::string& name, int cycles) {
    REQUIRE(java.lock(name));
    int refused = 0;
    for (int i = 0; i < cycles; ++i) {
        java.unlock(name);
        if (!java.lock(name)) ++refused;
    }
    return refused;
}

/// Java (owner `java_owner`) and `ours` exclude each other on one table, each takes the lock right
/// after the other's unlock, and ours lists Java's record.
template <typename Java>
void check_exclusion_with_java(Java& java, const std::string& java_owner, lock_provider& ours) {
    const lock_configuration config{"shared-job", std::chrono::minutes{1}};
    REQUIRE(java.lock("shared-job"));
    CHECK_FALSE(ours.try_lock(config));
    const auto listed = inspect(ours).list_locks();
    REQUIRE(listed.size() == 1);
    CHECK(listed.front().locked_by == java_owner);  // Java's times read fine
    CHECK(listed.front().lock_until > listed.front().locked_at);

    java.unlock("shared-job");
    auto held = ours.try_lock(config);  // at once after Java's unlock
    REQUIRE(held);
    CHECK_FALSE(java.lock("shared-job"));
    held->unlock();
    CHECK(java.lock("shared-job"));  // at once after ours
    CHECK_FALSE(ours.try_lock(config));
    java.unlock("shared-job");
}

}  // namespace shedlock::test
