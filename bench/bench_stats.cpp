#include "bench_stats.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace shedlock::bench {

latency_summary summarize(std::vector<std::int64_t>& samples_ns) {
    latency_summary s;
    if (samples_ns.empty()) return s;
    std::sort(samples_ns.begin(), samples_ns.end());
    auto at = [&](double q) {
        const auto i = static_cast<std::size_t>(q * static_cast<double>(samples_ns.size() - 1));
        return static_cast<double>(samples_ns[i]) / 1000.0;
    };
    s.count = samples_ns.size();
    s.p50_us = at(0.50);
    s.p99_us = at(0.99);
    s.p999_us = at(0.999);
    s.max_us = static_cast<double>(samples_ns.back()) / 1000.0;
    return s;
}

std::string format(const latency_summary& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "n=%zu p50=%.0fus p99=%.0fus p999=%.0fus max=%.1fms", s.count, s.p50_us, s.p99_us,
                  s.p999_us, s.max_us / 1000.0);
    return buf;
}

median_range median_of(std::vector<double> v) {
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return {median, v.front(), v.back()};
}

std::string format(const median_range& r, const char* number) {
    const std::string pattern = std::string(number) + " [" + number + "-" + number + "]";
    char buf[128];
    std::snprintf(buf, sizeof buf, pattern.c_str(), r.median, r.min, r.max);
    return buf;
}

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

namespace {

using slice_clock = std::chrono::steady_clock;

void run_burst(const std::function<void()>& cycle, long n, tally& t) {
    const double cpu_start = thread_cpu_seconds();
    const auto start = slice_clock::now();
    for (long i = 0; i < n; ++i) cycle();
    t.wall += std::chrono::duration<double>(slice_clock::now() - start).count();
    t.cpu += thread_cpu_seconds() - cpu_start;
    t.cycles += n;
}

/// One value per slice, computed by `value` from that slice's tallies.
template <class F>
median_range over_slices(const std::vector<slice_tallies>& slices, F&& value) {
    std::vector<double> out;
    out.reserve(slices.size());
    for (const auto& slice : slices) out.push_back(value(slice));
    return median_of(std::move(out));
}

}  // namespace

slice_tallies run_slice(const variant_list& variants, std::chrono::duration<double> length, long burst) {
    slice_tallies out(variants.size());
    const auto end = slice_clock::now() +
                     std::chrono::duration_cast<slice_clock::duration>(length * static_cast<double>(variants.size()));
    for (std::size_t turn = 0; slice_clock::now() < end; ++turn)
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::size_t v = turn % 2 ? variants.size() - 1 - k : k;
            run_burst(variants[v].second, burst, out[v]);
        }
    return out;
}

std::vector<slice_tallies> run_slices(const variant_list& variants, int slices, std::chrono::duration<double> length,
                                      long burst) {
    std::vector<slice_tallies> out;
    for (int s = 0; s < slices; ++s) out.push_back(run_slice(variants, length, burst));
    return out;
}

void report_rates(const variant_list& variants, const std::vector<slice_tallies>& slices) {
    std::printf("  %-34s %-28s %s\n", "", "wall: cycles/s [min-max]", "CPU: us/cycle [min-max]");
    for (std::size_t v = 0; v < variants.size(); ++v) {
        const auto rate = over_slices(slices, [v](const slice_tallies& s) { return s[v].rate(); });
        const auto cpu = over_slices(slices, [v](const slice_tallies& s) { return s[v].cpu_us(); });
        std::printf("  %-34s %-28s %s\n", variants[v].first.c_str(), format(rate, "%.0f").c_str(),
                    format(cpu, "%.2f").c_str());
    }
}

median_range report_ratio(const variant_list& variants, const std::vector<slice_tallies>& slices,
                          std::size_t candidate, std::size_t floor) {
    const auto wall = over_slices(slices, [&](const slice_tallies& s) { return s[floor].rate() / s[candidate].rate(); });
    const auto cpu = over_slices(slices, [&](const slice_tallies& s) { return s[candidate].cpu_us() / s[floor].cpu_us(); });
    std::printf("  %s / %s: wall %s   CPU %s\n", variants[candidate].first.c_str(), variants[floor].first.c_str(),
                format(wall).c_str(), format(cpu).c_str());
    return wall;
}

void print_load(const char* when) {
    double load[3] = {0, 0, 0};
    if (::getloadavg(load, 3) < 0) return;
    const unsigned cores = std::thread::hardware_concurrency();
    std::printf("load average %s: %.2f %.2f %.2f on %u cores%s\n", when, load[0], load[1], load[2], cores,
                load[0] > 0.5 * cores ? " (loaded: the figures include waiting for a core)" : "");
}

}  // namespace shedlock::bench
