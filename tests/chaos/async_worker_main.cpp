// chaos_async_worker: stands in for `shedlock run` in the async lane (chaos_suite --async). Same
// command line shape, exit statuses and messages; the lock is taken, extended and released through
// shedlock::asio (async_attempt.hpp).
//
//   chaos_async_worker run --journal FILE --attempt N -p URI -n NAME --at-most D [--at-least D]
//                      [--keep-alive] -- command...
#include "async_attempt.hpp"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    constexpr int exit_usage = 64;
    constexpr int exit_config = 78;
    const auto args = shedlock::chaos::parse_async_attempt(argc, argv);
    if (!args) {
        std::fprintf(stderr, "usage: chaos_async_worker run --journal FILE --attempt N -p URI -n NAME --at-most D "
                             "[--at-least D] [--keep-alive] -- command...\n");
        return exit_usage;
    }
    try {
        return shedlock::chaos::run_async_attempt(*args);
    } catch (const std::exception& e) {  // configuration_error: a bad URI or duration
        std::fprintf(stderr, "chaos_async_worker: %s\n", e.what());
        return exit_config;
    }
}
