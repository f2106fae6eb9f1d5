#include "chaos_clock.hpp"

#include <cerrno>
#include <ctime>

namespace shedlock::chaos {

std::int64_t now_us() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000;
}

void sleep_us(std::int64_t us) {
    if (us <= 0) return;
    timespec left{static_cast<time_t>(us / 1'000'000), static_cast<long>(us % 1'000'000) * 1000};
    // Bounded: each EINTR restarts with the remainder, which only shrinks.
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

}  // namespace shedlock::chaos
