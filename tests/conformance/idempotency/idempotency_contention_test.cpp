// Idempotency conformance under contention: real threads and real processes claim the same keys,
// transition the same record and fence the same resource; exactly one may win each time.
#include "idempotency_conformance.hpp"
#include "idempotency_support.hpp"

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
using namespace std::chrono_literals;

namespace {

constexpr int contended_keys = 20;

/// Outcomes per key, in memory shared by forked processes.
struct claim_tally {
    std::array<std::atomic<int>, contended_keys> claimed{};
    std::array<std::atomic<int>, contended_keys> other{};
    std::atomic<int> errors{0};
};

/// Claims every key once, counting what came back; all contenders start at one moment.
void claim_all(idempotency_store& store, const std::vector<std::string>& keys, claim_tally& tally,
               const std::atomic<bool>& go) {
    while (!go.load()) std::this_thread::yield();
    for (int k = 0; k < contended_keys; ++k) {
        try {
            const auto r = store.claim(keys[static_cast<std::size_t>(k)], 10min);
            (r.status == claim_status::claimed ? tally.claimed : tally.other)[static_cast<std::size_t>(k)].fetch_add(1);
        } catch (const storage_error&) {
            tally.errors.fetch_add(1);
        }
    }
}

std::vector<std::string> contended_claim_keys(const std::string& base) {
    std::vector<std::string> keys;
    for (int k = 0; k < contended_keys; ++k) keys.push_back(unique_claim_key(base));
    return keys;
}

}  // namespace

TEST_CASE("idempotency conformance: 8 threads claim one key, exactly one claimed", "[idempotency_conformance][contention]") {
    auto backend = make_idempotency_backend();
    auto store = backend->make_store(system_clock::instance());
    const auto keys = contended_claim_keys("threads");
    claim_tally tally;
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) threads.emplace_back([&] { claim_all(*store, keys, tally, go); });
    go.store(true);
    for (auto& t : threads) t.join();
    CHECK(tally.errors.load() == 0);
    for (int k = 0; k < contended_keys; ++k) {
        INFO("key " << k);
        CHECK(tally.claimed[static_cast<std::size_t>(k)].load() == 1);
        CHECK(tally.other[static_cast<std::size_t>(k)].load() == 7);
    }
}

TEST_CASE("idempotency conformance: 4 processes claim one key, exactly one claimed",
          "[idempotency_conformance][contention][processes]") {
    // An in-process store registers its tests IN_PROCESS, which leaves this case out (ctest shows
    // it as not applicable); run by hand there, it fails, not passes.
    auto backend = make_idempotency_backend();
    INFO(backend->name() << " keeps claims inside one process: separate processes cannot contend");
    REQUIRE(backend->shared_across_processes());
    (void)backend->make_store(system_clock::instance());  // the shared storage exists before the fork
    struct shared_memory {
        claim_tally tally;
        std::atomic<bool> go{false};
        std::atomic<int> ready{0};
    };
    void* memory = ::mmap(nullptr, sizeof(shared_memory), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(memory != MAP_FAILED);
    auto* shared = new (memory) shared_memory{};
    const auto keys = contended_claim_keys("processes");
    std::vector<pid_t> children;
    for (int p = 0; p < 4; ++p) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int code = 0;
            try {
                auto store = backend->make_store(system_clock::instance());
                shared->ready.fetch_add(1);
                claim_all(*store, keys, shared->tally, shared->go);
            } catch (...) {
                code = 3;
            }
            ::_exit(code);  // no destructors of the parent's objects in the child
        }
        children.push_back(pid);
    }
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (shared->ready.load() < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    shared->go.store(true);
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    CHECK(shared->tally.errors.load() == 0);
    for (int k = 0; k < contended_keys; ++k) {
        INFO("key " << k);
        CHECK(shared->tally.claimed[static_cast<std::size_t>(k)].load() == 1);
        CHECK(shared->tally.other[static_cast<std::size_t>(k)].load() == 3);
    }
    shared->~shared_memory();
    ::munmap(memory, sizeof(shared_memory));
}

TEST_CASE("idempotency conformance: transition applies once under contention", "[idempotency_conformance][contention]") {
    auto backend = make_idempotency_backend();
    auto store = backend->make_store(system_clock::instance());
    for (int round = 0; round < 10; ++round) {
        const auto key = unique_claim_key("transition");
        std::atomic<int> created{0}, started{0}, errors{0};
        std::atomic<bool> go{false};
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&] {
                while (!go.load()) std::this_thread::yield();
                try {
                    if (store->transition(key, "", "INIT")) created.fetch_add(1);
                    while (!store->find(key)) std::this_thread::yield();
                    if (store->transition(key, "INIT", "RUNNING")) started.fetch_add(1);
                } catch (const storage_error&) {
                    errors.fetch_add(1);
                }
            });
        go.store(true);
        for (auto& t : threads) t.join();
        INFO("round " << round);
        CHECK(errors.load() == 0);
        CHECK(created.load() == 1);
        CHECK(started.load() == 1);
        CHECK(store->find(key)->state == "RUNNING");
    }
}

TEST_CASE("idempotency conformance: fence under contention never accepts a token twice or going back",
          "[idempotency_conformance][contention]") {
    auto backend = make_idempotency_backend();
    auto store = backend->make_store(system_clock::instance());
    const auto resource = unique_claim_key("fence");
    constexpr int tokens = 60;
    std::array<std::atomic<int>, tokens + 1> accepted{};
    std::array<std::vector<int>, 4> accepted_by{};  // in the order each thread saw them accepted
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int token = 1; token <= tokens; ++token) {
                try {
                    if (store->fence(resource, token)) {
                        accepted[static_cast<std::size_t>(token)].fetch_add(1);
                        accepted_by[static_cast<std::size_t>(t)].push_back(token);
                    }
                } catch (const storage_error&) {
                    errors.fetch_add(1);
                }
            }
        });
    for (auto& t : threads) t.join();
    CHECK(errors.load() == 0);
    int total = 0;
    for (int token = 1; token <= tokens; ++token) {
        INFO("token " << token);
        CHECK(accepted[static_cast<std::size_t>(token)].load() <= 1);
        total += accepted[static_cast<std::size_t>(token)].load();
    }
    CHECK(total >= 1);
    CHECK(accepted[tokens].load() == 1);  // the highest is always accepted by somebody
    CHECK_FALSE(store->fence(resource, tokens));
}
