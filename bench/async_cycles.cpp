// Lock cycles per second on ONE thread with many cycles in flight (issue 23's bench), per backend:
//
//   async     the library's asynchronous service from open_async_backend() (the backend's
//             non-blocking driver when it has one, else its provider on a pool, said so in the
//             output): `in_flight` coroutines on one io_context run by this thread, each looping
//             async_try_lock -> async_unlock on its own name through the public token API;
//   blocking  the blocking provider from open_lock_provider(): try_lock + unlock, one cycle
//             after the other, on this thread;
//   raw       a hand-written non-blocking client doing the provider's own scripts (Redis: hiredis
//             async, EVALSHA) or statements (PostgreSQL: libpq non-blocking; MariaDB: Connector/C
//             non-blocking; both prepared) with the same cycles in flight and the same number of
//             connections as the driver (the URI's pool_size) on the same io_context
//             (async_cycles_raw.hpp).
//
// Every side runs `seconds` per slice, in turn, the order reversed every other slice; reported
// are medians with [min-max] over the slices of cycles/s and of this thread's CPU us/cycle, and
// the per-slice ratios async/blocking (the speed-up) and raw/async (the distance to the floor).
// Issue 23's targets: async/blocking >= 5 and raw/async <= 1.25 for Redis and PostgreSQL.
// Never a timed assertion: a program to run by hand (docs/tuning.md has the figures).
//
//   SHEDLOCK_TEST_REDIS_URI=redis://... SHEDLOCK_TEST_POSTGRES_URI=postgresql://...
//   [SHEDLOCK_TEST_MYSQL_URI=mysql://...] async_cycles [slices=20] [seconds=0.5] [in_flight=64]
//   [backends=redis,postgres,mysql]
//   ASYNC_CYCLES_ONLY=0|1|2 runs one side alone (async, blocking, raw), for perf or strace -c.
#include "async_cycles.hpp"
#include "async_cycles_raw.hpp"
#include "bench_stats.hpp"

#include <shedlock/asio/all_drivers.hpp>
#include <shedlock/provider_registry.hpp>
#ifdef ASYNC_BENCH_POSTGRES
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>
#endif
#ifdef ASYNC_BENCH_REDIS
#include <shedlock/providers/redis_lock_provider.hpp>
#endif
#ifdef ASYNC_BENCH_MYSQL
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

using namespace shedlock;
namespace bench = shedlock::bench;

namespace {

constexpr std::chrono::milliseconds at_most{30'000};

struct run_settings {
    bench::harness_settings harness;
    int in_flight = 64;
    std::string backends = "redis,postgres,mysql";
};

/// `uri` with `key=value` added unless the URI sets the key already.
std::string with_option(std::string uri, const std::string& key, const std::string& value) {
    const auto query = uri.find('?');
    if (query != std::string::npos && (uri.find("?" + key + "=") != std::string::npos ||
                                       uri.find("&" + key + "=") != std::string::npos))
        return uri;
    return uri + (query == std::string::npos ? "?" : "&") + key + "=" + value;
}

/// The async and blocking sides of `session` (and the ratio pairs against them), for any backend.
struct library_sides {
    std::unique_ptr<asio::async_session> session;
    std::unique_ptr<lock_provider> blocking;
    std::vector<bench::side> sides;
};

library_sides open_sides(const std::string& uri, boost::asio::io_context& io, const run_settings& s,
                         const std::string& tag) {
    library_sides out;
    out.session = asio::open_async_backend(uri, io.get_executor());
    auto& service = out.session->locks();
    std::printf("  async service: %s%s\n", service.describe().c_str(),
                out.session->native_locks() ? "" : " (NOT the native driver: none is registered for this backend)");
    out.blocking = open_lock_provider(uri);
    out.sides.push_back({"async, " + std::to_string(s.in_flight) + " in flight",
                         bench::async_side(service, io, bench::bench_names(tag + "-async", s.in_flight), at_most)});
    out.sides.push_back({"blocking provider", bench::blocking_side(*out.blocking, bench::bench_names(tag + "-blocking", 1).front(), at_most)});
    return out;
}

#ifdef ASYNC_BENCH_REDIS
void run_redis(const std::string& uri, const run_settings& s) {
    boost::asio::io_context io(1);
    const auto options = providers::redis_options_from_uri(parse_provider_uri(uri));
    std::printf("Redis %s:%u db %d, pool_size=%zu, fencing=%s\n", options.host.c_str(), options.port, options.db,
                options.pool_size, options.fencing ? "on" : "off");
    auto lib = open_sides(uri, io, s, "redis");
    lib.sides.push_back({"raw hiredis async, " + std::to_string(s.in_flight) + " in flight",
                         bench::raw_redis_side(options, io, bench::bench_names("redis-raw", s.in_flight), at_most)});
    bench::measure("Redis acquire+unlock, one thread", lib.sides, {{0, 1}, {2, 0}}, s.harness);
}

#endif

#ifdef ASYNC_BENCH_POSTGRES
void run_postgres(std::string uri, const run_settings& s) {
    uri = with_option(with_option(uri, "table", "bench_async_cycles"), "create_schema", "true");
    boost::asio::io_context io(1);
    const auto options = providers::postgres_options::from_uri(parse_provider_uri(uri));
    std::printf("PostgreSQL %s, pool_size=%zu\n", options.redacted_uri().c_str(), options.pool_size);
    auto lib = open_sides(uri, io, s, "pg");
    const auto* provider = dynamic_cast<const providers::sql::sql_lock_provider*>(&lib.session->blocking().locks());
    if (!provider) throw std::runtime_error("postgres: the session's lock provider is not the SQL provider");
    lib.sides.push_back({"raw libpq non-blocking, " + std::to_string(s.in_flight) + " in flight",
                         bench::raw_postgres_side(options, *provider, io, bench::bench_names("pg-raw", s.in_flight), at_most)});
    bench::measure("PostgreSQL acquire+unlock, one thread", lib.sides, {{0, 1}, {2, 0}}, s.harness);
}

#endif

#ifdef ASYNC_BENCH_MYSQL
void run_mysql(std::string uri, const run_settings& s) {
    uri = with_option(with_option(uri, "table", "bench_async_cycles"), "create_schema", "true");
    boost::asio::io_context io(1);
    const auto options = providers::mysql_options::from_uri(parse_provider_uri(uri));
    std::printf("MariaDB %s, pool_size=%zu\n", options.redacted_uri().c_str(), options.pool_size);
    auto lib = open_sides(uri, io, s, "mysql");
    const auto* provider = dynamic_cast<const providers::sql::sql_lock_provider*>(&lib.session->blocking().locks());
    if (!provider) throw std::runtime_error("mysql: the session's lock provider is not the SQL provider");
    lib.sides.push_back({"raw Connector/C non-blocking, " + std::to_string(s.in_flight) + " in flight",
                         bench::raw_mysql_side(options, *provider, io, bench::bench_names("mysql-raw", s.in_flight), at_most)});
    bench::measure("MariaDB acquire+unlock, one thread", lib.sides, {{0, 1}, {2, 0}}, s.harness);
}
#endif

bool wanted(const run_settings& s, const char* backend) { return s.backends.find(backend) != std::string::npos; }

}  // namespace

int main(int argc, char** argv) {
    run_settings s;
    if (argc > 1) s.harness.slices = std::atoi(argv[1]);
    if (argc > 2) s.harness.seconds = std::atof(argv[2]);
    if (argc > 3) s.in_flight = std::atoi(argv[3]);
    if (argc > 4) s.backends = argv[4];
    if (s.harness.slices < 1 || s.harness.seconds <= 0 || s.in_flight < 1) {
        std::fprintf(stderr, "usage: async_cycles [slices>=1, 20] [seconds>0, 0.5] [in_flight>=1] [backends=redis,postgres,mysql]\n");
        return 2;
    }
    if (const char* only = std::getenv("ASYNC_CYCLES_ONLY")) s.harness.only = std::atoi(only);
    register_all_async_drivers();
    bench::print_load("at start");
    int ran = 0;
    try {
#ifdef ASYNC_BENCH_REDIS
        if (const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI"); uri && wanted(s, "redis")) run_redis(uri, s), ++ran;
#endif
#ifdef ASYNC_BENCH_POSTGRES
        if (const char* uri = std::getenv("SHEDLOCK_TEST_POSTGRES_URI"); uri && wanted(s, "postgres"))
            run_postgres(uri, s), ++ran;
#endif
#ifdef ASYNC_BENCH_MYSQL
        if (const char* uri = std::getenv("SHEDLOCK_TEST_MYSQL_URI"); uri && wanted(s, "mysql")) run_mysql(uri, s), ++ran;
#endif
    } catch (const std::exception& e) {
        std::fprintf(stderr, "async_cycles: %s\n", e.what());
        return 1;
    }
    bench::print_load("at end");
    if (ran == 0) std::fprintf(stderr, "async_cycles: set SHEDLOCK_TEST_REDIS_URI, SHEDLOCK_TEST_POSTGRES_URI and/or SHEDLOCK_TEST_MYSQL_URI\n");
    return ran == 0 ? 2 : 0;
}
