#include "startup_race.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace shedlock::test {

void check_simultaneous_start(int instances, const std::function<void()>& start) {
    std::atomic<int> waiting{instances};
    std::mutex mutex;
    std::vector<std::string> errors;
    std::vector<std::thread> threads;
    for (int i = 0; i < instances; ++i)
        threads.emplace_back([&] {
            waiting.fetch_sub(1);
            while (waiting.load() > 0) std::this_thread::yield();  // a spin start line: all go at once
            try {
                start();
            } catch (const std::exception& e) {
                const std::lock_guard lock(mutex);
                errors.emplace_back(e.what());
            }
        });
    for (auto& t : threads) t.join();
    INFO("first error: " << (errors.empty() ? std::string("none") : errors.front()));
    CHECK(errors.empty());
}

void check_tokens_after_simultaneous_start(int instances, int rounds, const std::function<void()>& reset,
                                           const std::function<std::unique_ptr<lock_provider>()>& make,
                                           std::int64_t first_token) {
    for (int round = 0; round < rounds; ++round) {
        reset();
        std::vector<std::unique_ptr<lock_provider>> providers(static_cast<std::size_t>(instances));
        std::atomic<std::size_t> next{0};
        check_simultaneous_start(instances, [&] { providers[next.fetch_add(1)] = make(); });
        std::vector<std::optional<std::int64_t>> tokens;
        for (auto& provider : providers) {
            REQUIRE(provider);
            auto held = provider->try_lock({"startup-tokens", std::chrono::milliseconds{60'000}});
            REQUIRE(held);
            tokens.push_back(held->fencing_token());
            held->unlock();
        }
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            INFO("round " << round << ", instance " << i);
            REQUIRE(tokens[i].has_value());
            CHECK(*tokens[i] == first_token + static_cast<std::int64_t>(i));
        }
    }
}

}  // namespace shedlock::test
