#include <shedlock/error.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

/// A memory provider whose unlock fails: exercises the destructor's error path.
class failing_unlock_provider final : public lock_provider {
public:
    bool supports_fencing() const override { return false; }

private:
    std::optional<lease> do_try_lock(const lock_configuration& c, const std::string& owner) override {
        return lease{c.name(), owner, {}, {}, {}, std::nullopt};
    }
    void do_unlock(const lease&) override { throw storage_error(storage_category::unavailable, "server gone"); }
    std::optional<lease> do_extend(const lease&, milliseconds, milliseconds) override {
        throw storage_error(storage_category::unavailable, "server gone");
    }
};

}  // namespace

TEST_CASE("lock_handle is move-only and unlocks once", "[handle]") {
    providers::memory_lock_provider provider;
    auto held = provider.try_lock({"h", milliseconds{10'000}});
    REQUIRE(held);
    lock_handle moved = std::move(*held);
    CHECK_FALSE(held->active());
    CHECK(moved.active());
    CHECK(moved.fencing_token() == std::optional<std::int64_t>{1});
    moved.unlock();
    CHECK_THROWS_AS(moved.unlock(), lock_state_error);
    CHECK(provider.try_lock({"h", milliseconds{10'000}}));
}

TEST_CASE("move-assigning over an active handle releases the old lock", "[handle]") {
    providers::memory_lock_provider provider;
    auto a = provider.try_lock({"a", milliseconds{10'000}});
    auto b = provider.try_lock({"b", milliseconds{10'000}});
    REQUIRE(a);
    REQUIRE(b);
    *a = std::move(*b);
    CHECK(a->name() == "b");
    CHECK(provider.try_lock({"a", milliseconds{10'000}}));
    CHECK_FALSE(provider.try_lock({"b", milliseconds{10'000}}));
}

TEST_CASE("a failed unlock in a destructor goes to the error handler, never throws", "[handle]") {
    failing_unlock_provider provider;
    std::string reported;
    provider.set_error_handler([&](const std::string& name, const std::exception& e) { reported = name + ": " + e.what(); });
    { auto held = provider.try_lock({"x", milliseconds{1000}}); REQUIRE(held); }
    CHECK(reported == "x: server gone");
}

TEST_CASE("a storage error during extend keeps the handle usable", "[handle]") {
    failing_unlock_provider provider;
    provider.set_error_handler([](const std::string&, const std::exception&) {});
    auto held = provider.try_lock({"x", milliseconds{1000}});
    REQUIRE(held);
    CHECK_THROWS_AS((void)held->extend(milliseconds{1000}), storage_error);
    CHECK(held->active());
    CHECK_THROWS_AS((void)held->extend(milliseconds{0}), configuration_error);
}

TEST_CASE("extend keeps the minimum hold promised at acquisition", "[handle]") {
    // Regression: keep-alive extends with at_least 0, and the final unlock then freed the lock
    // before locked_at + lock_at_least_for (run --at-most 2s --at-least 1800ms --keep-alive).
    manual_clock clock;
    providers::memory_lock_provider provider(clock);
    auto held = provider.try_lock({"keep", milliseconds{2000}, milliseconds{1800}});
    REQUIRE(held);
    clock.advance(milliseconds{1000});
    auto extended = held->extend(milliseconds{2000});
    REQUIRE(extended);
    clock.advance(milliseconds{300});  // the task ends at 1.3 s
    extended->unlock();
    CHECK_FALSE(provider.try_lock({"keep", milliseconds{2000}}));  // still held: at_least runs to 1.8 s
    clock.advance(milliseconds{500});
    CHECK(provider.try_lock({"keep", milliseconds{2000}}));
}

TEST_CASE("extend validates its durations like a lock_configuration", "[handle]") {
    providers::memory_lock_provider provider;
    auto held = provider.try_lock({"bounds", milliseconds{10'000}});
    REQUIRE(held);
    CHECK_THROWS_WITH(held->extend(max_lock_at_most_for + milliseconds{1}), Contains("longer than the maximum"));
    CHECK(held->active());
}
