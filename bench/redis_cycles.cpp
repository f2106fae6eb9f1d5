// Acquire+unlock cycles/s through the Redis provider next to two raw floors, in one run:
//
//   own scripts  the provider's two scripts (acquire with SET NX PX + INCR of the fencing
//                counter, unlock compare-and-DEL) called by EVALSHA through hiredis directly;
//   SET + CAD    the lock the Redis documentation describes: `SET key token NX PX 30000`, and
//                the compare-and-delete script (EVALSHA) to release only one's own lock;
//   SET + DEL    the simplest a user writes by hand, `SET ... NX PX` then a plain `DEL` (which
//                can delete another holder's lock once the own one expired).
//
// The provider's acquire script also keeps the fencing counter (GET, TIME, SET of a second key):
// the floors do not.
//
// One connection each, one thread. Each slice interleaves the variants in bursts of `burst`
// cycles, the order reversed every other turn, so background load hits all of them alike
// (bench_stats.hpp). Reported: medians over the slices with [min-max] of cycles/s and CPU
// us/cycle, and the per-slice ratios provider time / floor time; never the best slice.
//
//   redis_cycles [redis://...] [slices=10] [seconds_per_slice=0.5] [burst=20]
//   (the URI defaults to $SHEDLOCK_TEST_REDIS_URI; "-" takes it from there too)
#include "bench_stats.hpp"
#include "redis_raw.hpp"

#include <shedlock/lock_handle.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

using namespace shedlock;
namespace bench = shedlock::bench;

namespace {

/// Floor 1: exactly the provider's two round trips, nothing else.
std::function<void()> own_scripts(const providers::redis_options& options) {
    using providers::detail::redis_script;
    auto c = bench::redis_connect(options);
    const std::string acquire = bench::redis_load(c.get(), redis_script::acquire),
                      unlock = bench::redis_load(c.get(), redis_script::unlock);
    const std::string key = options.prefix + ":{raw}", fence = key + ":fence";
    return [c, acquire, unlock, key, fence, cycles = 0L]() mutable {
        const std::string token = "bench-host:1:" + std::to_string(++cycles);
        auto* got = bench::redis_call(c.get(), {"EVALSHA", acquire, "2", key, fence, token, "30000"});
        const bool taken = got->integer >= 0;
        freeReplyObject(got);
        if (!taken) throw std::runtime_error("raw floor: lock unexpectedly held");
        freeReplyObject(bench::redis_call(c.get(), {"EVALSHA", unlock, "1", key, token, "0"}));
    };
}

/// The release of the Redis documentation's lock pattern: delete only if the value is ours.
constexpr const char* compare_and_delete =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/// Floors 2 and 3: SET NX PX, then the compare-and-delete script or a plain DEL.
std::function<void()> simplest(const providers::redis_options& options, bool safe_release) {
    auto c = bench::redis_connect(options);
    const std::string key = options.prefix + (safe_release ? ":{cad}" : ":{del}");
    std::string cad;
    if (safe_release) {
        auto* reply = bench::redis_call(c.get(), {"SCRIPT", "LOAD", compare_and_delete});
        cad.assign(reply->str, reply->len);
        freeReplyObject(reply);
    }
    return [c, key, cad, cycles = 0L]() mutable {
        const std::string token = "bench-host:1:" + std::to_string(++cycles);
        auto* got = bench::redis_call(c.get(), {"SET", key, token, "NX", "PX", "30000"});
        const bool taken = got->type == REDIS_REPLY_STATUS;
        freeReplyObject(got);
        if (!taken) throw std::runtime_error("simplest floor: lock unexpectedly held");
        if (cad.empty()) freeReplyObject(bench::redis_call(c.get(), {"DEL", key}));
        else freeReplyObject(bench::redis_call(c.get(), {"EVALSHA", cad, "1", key, token}));
    };
}

}  // namespace

int main(int argc, char** argv) {
    const char* uri = argc > 1 && std::string(argv[1]) != "-" ? argv[1] : std::getenv("SHEDLOCK_TEST_REDIS_URI");
    const int slices = argc > 2 ? std::atoi(argv[2]) : 10;
    const std::chrono::duration<double> slice_length{argc > 3 ? std::atof(argv[3]) : 0.5};
    const long burst = argc > 4 ? std::atol(argv[4]) : 20;
    if (uri == nullptr) {
        std::fprintf(stderr, "usage: redis_cycles redis://:pw@host:port/db (or set SHEDLOCK_TEST_REDIS_URI)\n");
        return 2;
    }
    try {
        auto options = providers::redis_options_from_uri(parse_provider_uri(uri));
        options.prefix =
            "bench-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
        options.pool_size = 1;
        auto provider = providers::make_redis_lock_provider(options);
        const lock_configuration config{"provider", std::chrono::milliseconds{30'000}};
        bench::variant_list variants{{"provider", [&] {
                                          auto held = provider->try_lock(config);
                                          if (!held) throw std::runtime_error("provider: lock unexpectedly held");
                                          held->unlock();
                                      }},
                                     {"raw own scripts", own_scripts(options)},
                                     {"raw SET NX PX + CAD script", simplest(options, true)},
                                     {"raw SET NX PX + DEL", simplest(options, false)}};
        for (const auto& v : variants)
            for (int i = 0; i < 50; ++i) v.second();  // warm-up: connect, script cache
        bench::print_load("at start");
        const auto results = bench::run_slices(variants, slices, slice_length, burst);
        std::printf("Redis acquire+unlock, one thread: %d slices of %.2fs per variant, variants alternating every "
                    "%ld cycles\n",
                    slices, slice_length.count(), burst);
        bench::report_rates(variants, results);
        std::printf("  provider time / floor time, per slice (median [min-max]):\n");
        bench::report_ratio(variants, results, 0, 1);
        bench::report_ratio(variants, results, 0, 2);
        bench::report_ratio(variants, results, 0, 3);
        bench::print_load("at end");
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "redis_cycles: %s\n", e.what());
        return 1;
    }
}
