// Conformance: mutual exclusion under contention from real threads and real processes.
#include "suite_support.hpp"

#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <thread>
#include <vector>

using namespace shedlock;
using namespace shedlock::conformance;
using std::chrono::milliseconds;

namespace {

/// Counters that live in memory shared by forked processes.
struct shared_counters {
    std::array<std::atomic<int>, 2> holders{};     // current holders per name; must never exceed 1
    std::atomic<int> overlaps{0};
    std::array<std::atomic<long>, 16> acquired{};  // acquisitions per worker
    std::atomic<long> errors{0};
};

/// One contender: repeatedly tries both names for `duration`; while holding, proves it is alone.
void contend(lock_provider& provider, const std::array<std::string, 2>& names, shared_counters& shared,
             int worker, milliseconds duration) {
    const auto deadline = std::chrono::steady_clock::now() + duration;
    for (int i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
        const int which = i % 2;
        try {
            auto held = provider.try_lock({names[which], milliseconds{30'000}});
            if (!held) continue;
            if (shared.holders[which].fetch_add(1) != 0) shared.overlaps.fetch_add(1);
            std::this_thread::sleep_for(std::chrono::microseconds{200});
            shared.holders[which].fetch_sub(1);
            shared.acquired[worker].fetch_add(1);
            held->unlock();
        } catch (const storage_error&) {
            shared.errors.fetch_add(1);
        }
    }
}

std::array<std::string, 2> contended_names() {
    return {fixture::unique_name("contended-a"), fixture::unique_name("contended-b")};
}

}  // namespace

TEST_CASE("conformance: 8 threads x 2 names, zero overlapping holders", "[conformance][contention]") {
    fixture f;
    shared_counters shared;
    const auto names = contended_names();
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] { contend(f.provider(), names, shared, t, milliseconds{1500}); });
    for (auto& t : threads) t.join();
    long total = 0;
    for (int t = 0; t < 8; ++t) total += shared.acquired[t].load();
    INFO("acquisitions " << total << ", storage errors " << shared.errors.load());
    CHECK(shared.overlaps.load() == 0);
    CHECK(total > 20);
    CHECK(shared.errors.load() == 0);
}

TEST_CASE("conformance: 4 processes x 2 names, zero overlapping holders", "[conformance][contention][processes]") {
    // A backend whose storage lives in one process registers its tests IN_PROCESS, which leaves
    // this case out (ctest shows it as not applicable); run by hand there, it fails, not passes.
    INFO(current_backend().name() << " keeps locks inside one process: separate processes cannot contend");
    REQUIRE(current_backend().shared_across_processes());
    void* memory = ::mmap(nullptr, sizeof(shared_counters), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(memory != MAP_FAILED);
    auto* shared = new (memory) shared_counters{};
    const auto names = contended_names();
    std::vector<pid_t> children;
    for (int p = 0; p < 4; ++p) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int code = 0;
            try {
                auto provider = current_backend().make_provider(system_clock::instance());
                contend(*provider, names, *shared, p, milliseconds{2000});
            } catch (...) {
                code = 3;
            }
            ::_exit(code);  // no destructors of the parent's objects in the child
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    long total = 0;
    for (int p = 0; p < 4; ++p) {
        INFO("process " << p << " acquired " << shared->acquired[p].load());
        CHECK(shared->acquired[p].load() > 0);  // nobody starved
        total += shared->acquired[p].load();
    }
    INFO("acquisitions " << total << ", storage errors " << shared->errors.load());
    CHECK(shared->overlaps.load() == 0);
    CHECK(shared->errors.load() == 0);
    shared->~shared_counters();
    ::munmap(memory, sizeof(shared_counters));
}
