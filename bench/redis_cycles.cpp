// Acquire+unlock cycles/s through the Redis provider next to the raw floor: the same two scripts
// (acquire with SET NX PX + INCR, unlock compare-and-DEL) called by EVALSHA through hiredis
// directly, on one connection, in the same run. Rounds alternate so drift hits both alike.
//
//   redis_cycles [redis://...]   (default: $SHEDLOCK_TEST_REDIS_URI)
#include "redis_scripts.hpp"

#include <shedlock/lock_handle.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

using namespace shedlock;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr auto round_length = std::chrono::milliseconds{1000};
constexpr int rounds = 5;

redisReply* call(redisContext* c, std::initializer_list<std::string> args) {
    const char* argv[8];
    size_t lengths[8];
    int n = 0;
    for (const auto& a : args) {
        argv[n] = a.data();
        lengths[n++] = a.size();
    }
    auto* reply = static_cast<redisReply*>(redisCommandArgv(c, n, argv, lengths));
    if (reply == nullptr || reply->type == REDIS_REPLY_ERROR) throw std::runtime_error("raw floor: command failed");
    return reply;
}

std::string load(redisContext* c, providers::detail::redis_script script) {
    auto* reply = call(c, {"SCRIPT", "LOAD", std::string(providers::detail::script_source(script))});
    std::string sha(reply->str, reply->len);
    freeReplyObject(reply);
    return sha;
}

/// The floor: exactly the provider's two round trips, nothing else.
long raw_round(redisContext* c, const std::string& prefix) {
    using providers::detail::redis_script;
    static const std::string acquire = load(c, redis_script::acquire), unlock = load(c, redis_script::unlock);
    const std::string key = prefix + ":{raw}", fence = key + ":fence";
    long cycles = 0;
    for (const auto end = clock_type::now() + round_length; clock_type::now() < end; ++cycles) {
        const std::string token = "bench-host:1:" + std::to_string(cycles);
        auto* got = call(c, {"EVALSHA", acquire, "2", key, fence, token, "30000"});
        if (got->integer < 0) throw std::runtime_error("raw floor: lock unexpectedly held");
        freeReplyObject(got);
        freeReplyObject(call(c, {"EVALSHA", unlock, "1", key, token, "0"}));
    }
    return cycles;
}

long provider_round(lock_provider& provider) {
    const lock_configuration config{"provider", std::chrono::milliseconds{30'000}};
    long cycles = 0;
    for (const auto end = clock_type::now() + round_length; clock_type::now() < end; ++cycles) {
        auto held = provider.try_lock(config);
        if (!held) throw std::runtime_error("provider: lock unexpectedly held");
        held->unlock();
    }
    return cycles;
}

}  // namespace

int main(int argc, char** argv) {
    const char* uri = argc > 1 ? argv[1] : std::getenv("SHEDLOCK_TEST_REDIS_URI");
    if (uri == nullptr) {
        std::fprintf(stderr, "usage: redis_cycles redis://:pw@host:port/db (or set SHEDLOCK_TEST_REDIS_URI)\n");
        return 2;
    }
    try {
        auto options = providers::redis_options_from_uri(parse_provider_uri(uri));
        options.prefix = "bench-" + std::to_string(clock_type::now().time_since_epoch().count() % 1000000);
        options.pool_size = 1;
        auto provider = providers::make_redis_lock_provider(options);
        redisContext* raw = redisConnect(options.host.c_str(), options.port);
        if (raw == nullptr || raw->err) throw std::runtime_error("raw floor: cannot connect");
        if (options.password) {
            if (options.user.empty()) freeReplyObject(call(raw, {"AUTH", *options.password}));
            else freeReplyObject(call(raw, {"AUTH", options.user, *options.password}));
        }
        freeReplyObject(call(raw, {"SELECT", std::to_string(options.db)}));
        long raw_total = 0, provider_total = 0;
        for (int r = 0; r < rounds; ++r) {
            raw_total += raw_round(raw, options.prefix);
            provider_total += provider_round(*provider);
        }
        redisFree(raw);
        const double seconds = rounds * std::chrono::duration<double>(round_length).count();
        const double raw_rate = raw_total / seconds, provider_rate = provider_total / seconds;
        std::printf("redis acquire+unlock, 1 thread, %d x %lld ms rounds each\n", rounds,
                    static_cast<long long>(round_length.count()));
        std::printf("  raw hiredis EVALSHA floor: %10.0f cycles/s\n", raw_rate);
        std::printf("  shedlock redis provider:   %10.0f cycles/s\n", provider_rate);
        std::printf("  floor / provider:          %10.3fx  (target <= 1.10x)\n", raw_rate / provider_rate);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "redis_cycles: %s\n", e.what());
        return 1;
    }
}
