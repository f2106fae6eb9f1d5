#include "sqlite_busy_wait.hpp"

#include <random>
#include <thread>

namespace shedlock::providers::detail {
namespace {

int on_busy(void* context, int attempt) {
    auto& state = *static_cast<busy_wait_state*>(context);
    const auto now = std::chrono::steady_clock::now();
    if (attempt == 0) state.started = now;
    if (now - state.started >= state.timeout) return 0;  // give up: SQLITE_BUSY reaches the caller
    thread_local std::minstd_rand jitter{std::random_device{}()};
    const int cap_us = attempt < 8 ? 20 + attempt * 30 : 250;
    std::this_thread::sleep_for(std::chrono::microseconds(10 + static_cast<int>(jitter() % cap_us)));
    return 1;
}

}  // namespace

void install_busy_wait(sqlite3* db, busy_wait_state& state) { sqlite3_busy_handler(db, &on_busy, &state); }

}  // namespace shedlock::providers::detail
