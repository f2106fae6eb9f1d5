// Server CPU and WAL per refused attempt and per takeover on PostgreSQL: Java ShedLock's UPDATE,
// our acquire before the refusal rework, our statements now and the provider (refusal_cost.hpp).
//
//   SHEDLOCK_TEST_POSTGRES_URI=postgresql://... refusal_cost [slices=7] [refusals=20000] [takeovers=1000] [burst=1000]
//       [pace_us=0]
//
// The server must run on this machine: its backends' CPU is read from /proc.
#include "refusal_cost.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    const char* uri = std::getenv("SHEDLOCK_TEST_POSTGRES_URI");
    if (!uri) {
        std::fprintf(stderr, "refusal_cost: set SHEDLOCK_TEST_POSTGRES_URI to a PostgreSQL on this machine\n");
        return 64;
    }
    shedlock::bench::refusal_cost_options options;
    options.uri = uri;
    try {
        if (argc > 1) options.slices = std::stoi(argv[1]);
        if (argc > 2) options.refusals = std::stol(argv[2]);
        if (argc > 3) options.takeovers = std::stol(argv[3]);
        if (argc > 4) options.burst = std::stol(argv[4]);
        if (argc > 5) options.pace_us = std::stoi(argv[5]);
    } catch (const std::exception&) {
        std::fprintf(stderr, "usage: refusal_cost [slices] [refusals per slice] [takeovers per slice] [burst] [pace_us]\n");
        return 64;
    }
    if (options.slices < 1 || options.refusals < 1 || options.takeovers < 1 || options.burst < 10 ||
        options.pace_us < 0 || options.pace_us > 1'000'000) {
        std::fprintf(stderr, "refusal_cost: slices, refusals and takeovers must be at least 1, burst at least 10, "
                             "pace_us 0 to 1000000\n");
        return 64;
    }
    try {
        shedlock::bench::print_load("before");
        shedlock::bench::print(shedlock::bench::measure_refusal_cost(options));
        shedlock::bench::print_load("after");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "refusal_cost: %s\n", e.what());
        return 1;
    }
    return 0;
}
