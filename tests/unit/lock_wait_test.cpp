// try_lock_for on the memory provider: time passes on an injected clock, so no test sleeps
// through the waits it checks (the one multi-threaded case uses real time and real threads).
#include <shedlock/error.hpp>
#include <shedlock/lock_wait.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/testing/lock_wait.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

using namespace shedlock;
using shedlock::providers::memory_lock_provider;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

/// A manual clock that also records every pause a waiter asked for.
class wait_recording_clock final : public shedlock::clock {
public:
    timestamp now() const override { return inner_.now(); }
    monotonic_time monotonic_now() const override { return inner_.monotonic_now(); }
    void sleep_for(milliseconds d) const override {
        pauses_.push_back(d);
        inner_.sleep_for(d);  // a manual clock passes the time instead of sleeping
    }
    milliseconds elapsed_since(monotonic_time t) const {
        return std::chrono::duration_cast<milliseconds>(monotonic_now() - t);
    }
    const std::vector<milliseconds>& pauses() const { return pauses_; }

private:
    manual_clock inner_;
    mutable std::vector<milliseconds> pauses_;  // one waiter per test: no lock needed
};

/// Every acquisition fails with a backend error.
class wait_unreachable_provider final : public lock_provider {
public:
    bool supports_fencing() const override { return false; }

private:
    std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override {
        throw storage_error(storage_category::unavailable, "server gone");
    }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, milliseconds, milliseconds) override { return std::nullopt; }
};

/// Simulated time with a stream of newcomers: while a waiter pauses, a newcomer arrives every
/// `gap`, makes one plain try_lock and, when it gets the lock, holds it for `hold` (its lease runs
/// out; it never unlocks). Single-threaded and deterministic apart from the waiter's jitter.
class newcomer_stream_clock final : public shedlock::clock {
public:
    /// The first newcomer arrives `gap - phase` after the start, so runs differ in where the
    /// releases fall relative to the waiter becoming senior.
    newcomer_stream_clock(milliseconds gap, milliseconds hold, milliseconds phase = milliseconds{0})
        : gap_(gap), hold_(hold), since_arrival_(phase) {}
    timestamp now() const override { return inner_.now(); }
    monotonic_time monotonic_now() const override { return inner_.monotonic_now(); }
    void sleep_for(milliseconds d) const override {
        for (milliseconds i{0}; i < d; ++i) {
            inner_.sleep_for(milliseconds{1});
            if (++since_arrival_ < gap_) continue;
            since_arrival_ = milliseconds{0};
            // Kept, never unlocked: each newcomer's lease simply runs out after `hold`.
            if (auto h = provider_->try_lock(lock_configuration(name_, hold_))) held_->push_back(std::move(*h));
        }
    }
    /// `held` keeps the newcomers' handles; declare it after the provider, so it goes first.
    void attach(lock_provider& p, std::string name, std::vector<lock_handle>& held) {
        provider_ = &p;
        name_ = std::move(name);
        held_ = &held;
    }

private:
    manual_clock inner_;
    milliseconds gap_, hold_;
    lock_provider* provider_ = nullptr;
    std::string name_;
    mutable milliseconds since_arrival_;
    std::vector<lock_handle>* held_ = nullptr;
};

}  // namespace

TEST_CASE("try_lock_for acquires a free lock at once, without pausing", "[wait]") {
    wait_recording_clock clock;
    memory_lock_provider provider(clock);
    auto handle = try_lock_for(provider, lock_configuration("wait-free", milliseconds{5000}), milliseconds{30000});
    REQUIRE(handle);
    CHECK(clock.pauses().empty());
}

TEST_CASE("try_lock_for returns empty once the timeout has passed on the clock", "[wait]") {
    wait_recording_clock clock;
    memory_lock_provider provider(clock);
    const lock_configuration config("wait-held", milliseconds{60000});
    auto holder = provider.try_lock(config);
    REQUIRE(holder);
    const auto started = clock.monotonic_now();
    auto waiter = try_lock_for(provider, config, milliseconds{3000});
    CHECK_FALSE(waiter);
    // The last attempt is made at the deadline, not a pause before or after it.
    CHECK(clock.elapsed_since(started) == milliseconds{3000});
    const lock_wait_options defaults;
    for (auto pause : clock.pauses()) CHECK(pause <= defaults.max_pause);
}

TEST_CASE("try_lock_for takes the lock within senior_pause of the holder's release", "[wait]") {
    wait_recording_clock clock;
    memory_lock_provider provider(clock);
    const lock_configuration config("wait-expiry", milliseconds{2500});
    auto holder = provider.try_lock(config);  // never released: the lease ends at 2.5 s
    REQUIRE(holder);
    const auto started = clock.monotonic_now();
    auto waiter = try_lock_for(provider, config, milliseconds{10000});
    REQUIRE(waiter);
    const lock_wait_options defaults;
    CHECK(clock.elapsed_since(started) >= milliseconds{2500});
    CHECK(clock.elapsed_since(started) <= milliseconds{2500} + defaults.senior_pause);
}

TEST_CASE("try_lock_for with a zero timeout is one attempt", "[wait]") {
    wait_recording_clock clock;
    memory_lock_provider provider(clock);
    const lock_configuration config("wait-zero", milliseconds{60000});
    auto holder = provider.try_lock(config);
    CHECK_FALSE(try_lock_for(provider, config, milliseconds{0}));
    CHECK(clock.pauses().empty());
}

TEST_CASE("try_lock_for refuses a negative timeout and bad pauses, naming the lock", "[wait]") {
    memory_lock_provider provider;
    const lock_configuration config("wait-negative", milliseconds{1000});
    CHECK_THROWS_WITH(try_lock_for(provider, config, milliseconds{-1}), Contains("wait-negative") && Contains("negative"));
    lock_wait_options bad;
    bad.first_pause = milliseconds{0};
    CHECK_THROWS_AS(try_lock_for(provider, config, milliseconds{10}, bad), configuration_error);
}

TEST_CASE("try_lock_for lets a backend error escape instead of waiting it out", "[wait]") {
    wait_unreachable_provider provider;
    const lock_configuration config("wait-error", milliseconds{1000});
    CHECK_THROWS_AS(try_lock_for(provider, config, milliseconds{60000}), storage_error);
}

TEST_CASE("try_lock_for stops waiting when stop_requested says so", "[wait]") {
    wait_recording_clock clock;
    memory_lock_provider provider(clock);
    const lock_configuration config("wait-stop", milliseconds{60000});
    auto holder = provider.try_lock(config);
    int asked = 0;
    lock_wait_options options;
    options.stop_requested = [&asked] { return ++asked == 3; };
    CHECK_FALSE(try_lock_for(provider, config, milliseconds{60000}, options));
    CHECK(asked == 3);
    CHECK(clock.pauses().size() == 2);
}

TEST_CASE("wait_pause doubles up to max_pause, then senior_pause once senior", "[wait]") {
    const lock_wait_options o;  // 10 ms doubling to 100 ms; senior after 1 s: 20 ms
    CHECK(wait_pause(o, 1, milliseconds{0}) == milliseconds{10});
    CHECK(wait_pause(o, 2, milliseconds{10}) == milliseconds{20});
    CHECK(wait_pause(o, 4, milliseconds{70}) == milliseconds{80});
    CHECK(wait_pause(o, 5, milliseconds{150}) == milliseconds{100});
    CHECK(wait_pause(o, 60, milliseconds{999}) == milliseconds{100});
    CHECK(wait_pause(o, 61, milliseconds{1000}) == milliseconds{20});
}

TEST_CASE("eight threads waiting on one lock all get it, one at a time", "[wait][threads]") {
    memory_lock_provider provider;
    const lock_configuration config("wait-eight", milliseconds{60000});
    constexpr int waiters = 8;
    constexpr milliseconds hold{50};
    std::mutex mutex;
    int inside = 0, most_inside = 0, ran = 0;
    std::vector<milliseconds> waited;
    std::vector<std::thread> threads;
    for (int i = 0; i < waiters; ++i)
        threads.emplace_back([&] {
            const auto started = std::chrono::steady_clock::now();
            auto handle = try_lock_for(provider, config, milliseconds{60000});
            if (!handle) return;
            {
                std::lock_guard<std::mutex> guard(mutex);
                most_inside = std::max(most_inside, ++inside);
                waited.push_back(std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - started));
            }
            std::this_thread::sleep_for(hold);  // the work the lock protects
            {
                std::lock_guard<std::mutex> guard(mutex);
                --inside;
                ++ran;
            }
            handle->unlock();
        });
    for (auto& t : threads) t.join();
    CHECK(ran == waiters);
    CHECK(most_inside == 1);
    // The bound of docs/lock-semantics.md without newcomers: the other seven holds, each followed
    // by at most one max_pause before somebody takes the lock; doubled for a loaded test machine.
    const lock_wait_options o;
    const milliseconds bound = 2 * (waiters - 1) * (hold + o.max_pause);
    for (auto w : waited) CHECK(w <= bound);
}

TEST_CASE("a senior waiter is not starved by a stream of newcomers that keeps the lock busy", "[wait]") {
    // A newcomer every 40 ms, each holding 250 ms: a lease ends 10 ms after an arrival, so the next
    // newcomer tries 30 ms after each release. A waiter pausing up to 100 ms loses most releases;
    // once senior (1 s of waiting) it polls every 20 ms at most and takes the next release. 20
    // runs, each with its own jitter and its own phase of the newcomers' arrivals; a pure 100 ms
    // poller would exceed the bound in most of them, and so would a waiter whose last pause before
    // seniority ran on past it.
    const lock_wait_options o;
    const milliseconds hold{250};
    std::size_t served = 0;
    for (int run = 0; run < 20; ++run) {
        newcomer_stream_clock clock(milliseconds{40}, hold, milliseconds{(run * 7) % 40});
        memory_lock_provider provider(clock);
        const std::string name = "wait-stream-" + std::to_string(run);
        std::vector<lock_handle> newcomers;
        clock.attach(provider, name, newcomers);
        auto first = provider.try_lock(lock_configuration(name, hold));  // never unlocked: runs out at 250 ms
        REQUIRE(first);
        const auto started = clock.monotonic_now();
        auto waiter = try_lock_for(provider, lock_configuration(name, milliseconds{60000}), milliseconds{60000});
        REQUIRE(waiter);
        const auto waited = std::chrono::duration_cast<milliseconds>(clock.monotonic_now() - started);
        INFO("run " << run << ": waited " << waited.count() << " ms, newcomers served " << newcomers.size());
        CHECK(waited <= o.senior_after + hold + o.senior_pause);  // the bound of docs/lock-semantics.md
        served += newcomers.size();
    }
    CHECK(served >= 5);  // the newcomers did take releases from the waiter before it was senior
}
