#pragma once
// Polls a condition with a deadline, so scheduler tests wait only as long as they must.

#include <chrono>
#include <thread>

namespace shedlock::test {

template <typename Predicate>
bool wait_for(Predicate done, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
    return true;
}

}  // namespace shedlock::test
