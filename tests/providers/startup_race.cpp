#include "startup_race.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
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

}  // namespace shedlock::test
