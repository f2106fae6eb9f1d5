// The slices of bench/async_cycles: every side runs for the slice length in turn, the order
// reversed every other slice, so background load hits all sides alike; figures are medians with
// [min-max] over the slices, never the best slice.
#include "async_cycles.hpp"
#include "bench_stats.hpp"

#include <shedlock/owner_token.hpp>

#include <unistd.h>

#include <cstdio>

namespace shedlock::bench {

std::vector<std::string> bench_names(const std::string& prefix, int count) {
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i)
        names.push_back("ac-" + std::to_string(::getpid()) + "-" + prefix + "-" + std::to_string(i));
    return names;
}

std::string counter_owner(long counter) {
    static const std::string process = this_process();
    std::string digits = std::to_string(counter);
    return process + std::string(digits.size() < 12 ? 12 - digits.size() : 0, '0') + digits;
}

void run_until_idle(boost::asio::io_context& io, const int* active) {
    while (*active > 0) {
        if (io.stopped()) io.restart();
        io.run_one();
    }
}

namespace {

tally timed(const side& s, double seconds) {
    const double cpu_start = thread_cpu_seconds();
    const auto start = bench_clock::now();
    const long cycles = s.run(start + std::chrono::duration_cast<bench_clock::duration>(std::chrono::duration<double>(seconds)));
    tally t;
    t.cycles = cycles;
    t.wall = std::chrono::duration<double>(bench_clock::now() - start).count();
    t.cpu = thread_cpu_seconds() - cpu_start;
    return t;
}

template <class F>
median_range over(const std::vector<slice_tallies>& slices, F&& value) {
    std::vector<double> out;
    for (const auto& s : slices) out.push_back(value(s));
    return median_of(std::move(out));
}

}  // namespace

void measure(const std::string& title, const std::vector<side>& all_sides,
             const std::vector<std::pair<std::size_t, std::size_t>>& all_ratios, const harness_settings& settings) {
    const bool alone = settings.only >= 0 && static_cast<std::size_t>(settings.only) < all_sides.size();
    const std::vector<side> sides = alone ? std::vector<side>{all_sides[static_cast<std::size_t>(settings.only)]} : all_sides;
    const auto ratios = alone ? std::vector<std::pair<std::size_t, std::size_t>>{} : all_ratios;
    long total = 0;  // every cycle of the run, warm-up included: per-cycle syscall counts
    for (const auto& s : sides) total += timed(s, settings.warm_up).cycles;
    std::vector<slice_tallies> slices;
    for (int k = 0; k < settings.slices; ++k) {
        slice_tallies tallies(sides.size());
        for (std::size_t i = 0; i < sides.size(); ++i) {
            const std::size_t v = k % 2 ? sides.size() - 1 - i : i;
            tallies[v] = timed(sides[v], settings.seconds);
            total += tallies[v].cycles;
        }
        slices.push_back(std::move(tallies));
    }
    std::printf("%s: %d slices of %.1fs per side, sides alternating in order\n", title.c_str(), settings.slices,
                settings.seconds);
    std::printf("  %-44s %-28s %s\n", "", "cycles/s [min-max]", "CPU us/cycle [min-max]");
    for (std::size_t v = 0; v < sides.size(); ++v)
        std::printf("  %-44s %-28s %s\n", sides[v].name.c_str(),
                    format(over(slices, [v](const slice_tallies& s) { return s[v].rate(); }), "%.0f").c_str(),
                    format(over(slices, [v](const slice_tallies& s) { return s[v].cpu_us(); }), "%.2f").c_str());
    for (const auto& [a, b] : ratios) {
        const auto rate = over(slices, [a = a, b = b](const slice_tallies& s) { return s[a].rate() / s[b].rate(); });
        const auto cpu = over(slices, [a = a, b = b](const slice_tallies& s) { return s[b].cpu_us() / s[a].cpu_us(); });
        std::printf("  %s vs %s: cycles/s ratio %s, CPU/cycle ratio %s\n", sides[a].name.c_str(), sides[b].name.c_str(),
                    format(rate, "%.2f").c_str(), format(cpu, "%.2f").c_str());
    }
    if (alone) std::printf("  cycles in all, warm-up included: %ld\n", total);
    std::fflush(stdout);
}

}  // namespace shedlock::bench
