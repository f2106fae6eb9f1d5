#include "bench_runner.hpp"

#include <shedlock/error.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

namespace shedlock::cli {
namespace {

using steady = std::chrono::steady_clock;

latency summarize(std::vector<double>& us) {
    if (us.empty()) return {};
    std::sort(us.begin(), us.end());
    auto at = [&](double q) { return us[static_cast<std::size_t>(q * static_cast<double>(us.size() - 1))]; };
    return {at(0.5), at(0.99), us.back()};
}

double micros_since(steady::time_point start) {
    return std::chrono::duration<double, std::micro>(steady::now() - start).count();
}

double seconds_of(std::chrono::milliseconds d) { return std::chrono::duration<double>(d).count(); }

/// One contender: try_lock (+unlock when acquired) on `name` until the deadline.
struct contender_result {
    long acquired = 0, attempts = 0;
    std::vector<double> latencies_us;        ///< of each try_lock
    std::vector<double> cycle_latencies_us;  ///< of each acquired try_lock + its unlock
};

contender_result hammer(lock_provider& provider, const std::string& name, steady::time_point deadline) {
    contender_result r;
    const lock_configuration config{name, std::chrono::seconds{30}};
    while (steady::now() < deadline) {
        const auto start = steady::now();
        try {
            auto held = provider.try_lock(config);
            r.latencies_us.push_back(micros_since(start));
            ++r.attempts;
            if (held) {
                held->unlock();
                r.cycle_latencies_us.push_back(micros_since(start));
                ++r.acquired;
            }
        } catch (const storage_error&) {
            ++r.attempts;
        }
    }
    return r;
}

double jain_index(const std::vector<long>& xs) {
    const double sum = std::accumulate(xs.begin(), xs.end(), 0.0);
    double squares = 0;
    for (long x : xs) squares += static_cast<double>(x) * static_cast<double>(x);
    return squares == 0 ? 0 : sum * sum / (static_cast<double>(xs.size()) * squares);
}

/// N contenders, each with its own provider (own connections, like separate instances), except
/// memory, whose state lives in one provider object.
std::vector<contender_result> run_parallel(const std::string& uri, opened_provider& shared, int n,
                                           std::chrono::milliseconds phase,
                                           const std::function<std::string(int)>& name_of) {
    std::vector<opened_provider> own;
    for (int i = 0; i < n && shared.kind != "memory"; ++i) own.push_back(open_provider(uri));
    std::vector<contender_result> results(static_cast<std::size_t>(n));
    const auto deadline = steady::now() + phase;
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
        lock_provider& p = own.empty() ? *shared.provider : *own[static_cast<std::size_t>(i)].provider;
        threads.emplace_back([&, i, &p = p] { results[static_cast<std::size_t>(i)] = hammer(p, name_of(i), deadline); });
    }
    for (auto& t : threads) t.join();
    return results;
}

}  // namespace

provider_figures bench_provider(const std::string& uri, const bench_plan& plan) {
    auto opened = open_provider(uri);
    const std::string prefix = "shedlock-bench:" + std::to_string(::getpid()) + ":";
    provider_figures f;
    f.provider = opened.display;
    f.contenders = plan.contenders;
    std::vector<std::string> names{prefix + "single", prefix + "contended"};

    if (plan.progress) plan.progress("single-threaded cycles");
    auto single = hammer(*opened.provider, names[0], steady::now() + plan.phase);
    f.single_cycles_per_s = static_cast<double>(single.acquired) / seconds_of(plan.phase);
    f.single_latency = summarize(single.latencies_us);
    f.cycle_latency = summarize(single.cycle_latencies_us);

    if (plan.progress) plan.progress(std::to_string(plan.contenders) + " contenders on one name");
    auto contended = run_parallel(uri, opened, plan.contenders, plan.phase, [&](int) { return names[1]; });
    std::vector<long> per;
    std::vector<double> all_latencies;
    long attempts = 0;
    for (auto& c : contended) {
        per.push_back(c.acquired);
        attempts += c.attempts;
        all_latencies.insert(all_latencies.end(), c.latencies_us.begin(), c.latencies_us.end());
    }
    f.contended_acquisitions_per_s = static_cast<double>(std::accumulate(per.begin(), per.end(), 0L)) / seconds_of(plan.phase);
    f.contended_attempts_per_s = static_cast<double>(attempts) / seconds_of(plan.phase);
    f.fairness = jain_index(per);
    f.contended_latency = summarize(all_latencies);

    if (plan.progress) plan.progress(std::to_string(plan.contenders) + " contenders on distinct names");
    for (int i = 0; i < plan.contenders; ++i) names.push_back(prefix + "distinct-" + std::to_string(i));
    auto distinct = run_parallel(uri, opened, plan.contenders, plan.phase,
                                 [&](int i) { return names[2 + static_cast<std::size_t>(i)]; });
    long cycles = 0;
    for (auto& d : distinct) cycles += d.acquired;
    f.distinct_cycles_per_s = static_cast<double>(cycles) / seconds_of(plan.phase);

    try {
        inspect(*opened.provider).delete_records(names);  // nothing left behind
    } catch (const unsupported_operation_error&) {
    }
    return f;
}

}  // namespace shedlock::cli
