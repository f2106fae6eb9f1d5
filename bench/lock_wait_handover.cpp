// lock_wait_handover: the time from a holder's release to a waiter's acquisition, for
// try_lock_for's polling and for a notification a release would send (Redis PUBLISH, PostgreSQL
// NOTIFY), on the real servers. Decides whether notification is worth its complexity
// (docs/lock-semantics.md, "Waiting for a lock"). Medians with [min-max] over the rounds.
//
//   lock_wait_handover [rounds]   (SHEDLOCK_TEST_REDIS_URI / SHEDLOCK_TEST_POSTGRES_URI; SQLite always)
#include "bench_stats.hpp"
#include "redis_raw.hpp"

#include <shedlock/lock_wait.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace shedlock;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

namespace {

/// A release announcement: the waiter listens before its first attempt and blocks in wait()
/// between attempts; the releaser calls notify() right after its unlock.
struct notifier {
    std::function<void(milliseconds)> wait;
    std::function<void()> notify;
};

bool readable(int fd, milliseconds timeout) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(timeout.count())) > 0;
}

std::string channel() { return "shedlock_wait_bench_" + std::to_string(::getpid()); }

notifier redis_notifier(const providers::redis_options& options) {
    auto sub = bench::redis_connect(options);
    auto pub = bench::redis_connect(options);
    freeReplyObject(bench::redis_call(sub.get(), {"SUBSCRIBE", channel()}));
    return {[sub](milliseconds timeout) {
                if (!readable(sub->fd, timeout)) return;
                void* reply = nullptr;
                if (redisGetReply(sub.get(), &reply) != REDIS_OK) throw std::runtime_error("redis: subscription lost");
                freeReplyObject(reply);
            },
            [pub] { freeReplyObject(bench::redis_call(pub.get(), {"PUBLISH", channel(), "released"})); }};
}

std::shared_ptr<PGconn> pg_connect(const std::string& uri) {
    std::shared_ptr<PGconn> c(PQconnectdb(uri.c_str()), PQfinish);
    if (PQstatus(c.get()) != CONNECTION_OK) throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(c.get()));
    return c;
}

void pg_exec(PGconn* c, const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c, sql.c_str()), PQclear);
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(c));
}

notifier postgres_notifier(const std::string& uri) {
    auto sub = pg_connect(uri);
    auto pub = pg_connect(uri);
    pg_exec(sub.get(), "LISTEN " + channel());
    return {[sub](milliseconds timeout) {
                if (!readable(PQsocket(sub.get()), timeout)) return;
                PQconsumeInput(sub.get());
                while (PGnotify* n = PQnotifies(sub.get())) PQfreemem(n);
            },
            [pub] { pg_exec(pub.get(), "NOTIFY " + channel()); }};
}

/// One round: the holder holds `hold`, releases; returns the release-to-acquisition time in ms.
/// `wait` is the waiter's way of getting the lock once it was refused.
double one_handover(lock_provider& provider, const lock_configuration& config, milliseconds hold,
                    const std::function<std::optional<lock_handle>()>& wait, const notifier* announce) {
    auto held = provider.try_lock(config);
    if (!held) throw std::runtime_error("the lock is held by somebody else");
    steady::time_point acquired{};
    std::exception_ptr failed;
    std::thread waiter([&] {
        try {
            auto mine = wait();
            acquired = steady::now();
            if (!mine) throw std::runtime_error("the waiter did not get the lock");
        } catch (...) {
            failed = std::current_exception();
        }
    });
    std::this_thread::sleep_for(hold);  // the holder's work; the waiter is refused meanwhile
    const auto released = steady::now();
    held->unlock();
    if (announce) announce->notify();
    waiter.join();
    if (failed) std::rethrow_exception(failed);
    return std::chrono::duration<double, std::milli>(acquired - released).count();
}

void report(const char* backend, const char* mode, milliseconds hold, int rounds,
            const std::function<double()>& round) {
    std::vector<double> ms;
    for (int i = 0; i < rounds; ++i) ms.push_back(round());
    std::printf("%-10s %-13s hold %5lld ms: release -> acquired %s ms (median [min-max], %d rounds)\n", backend, mode,
                static_cast<long long>(hold.count()), bench::format(bench::median_of(ms), "%.1f").c_str(), rounds);
    std::fflush(stdout);
}

void bench_backend(const char* backend, lock_provider& provider, const notifier* announce, int rounds) {
    const lock_configuration config{"wait-bench", milliseconds{60'000}};
    const auto polling = [&] { return try_lock_for(provider, config, milliseconds{30'000}); };
    for (milliseconds hold : {milliseconds{300}, milliseconds{1500}})
        report(backend, "polling", hold, rounds, [&] { return one_handover(provider, config, hold, polling, nullptr); });
    if (!announce) return;
    const auto notified = [&]() -> std::optional<lock_handle> {
        const auto deadline = steady::now() + std::chrono::seconds{30};
        while (steady::now() < deadline) {
            if (auto h = provider.try_lock(config)) return h;
            announce->wait(milliseconds{1000});  // the cap only guards against a lost message
        }
        return std::nullopt;
    };
    report(backend, "notification", milliseconds{300}, rounds,
           [&] { return one_handover(provider, config, milliseconds{300}, notified, announce); });
    inspect(provider).delete_records({config.name()});
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
    try {
        const std::string table = "wait_bench_" + std::to_string(::getpid());
        {
            providers::sqlite_options o;
            o.path = "/tmp/" + table + ".db";
            o.create_schema_if_missing = true;
            auto p = providers::make_sqlite_lock_provider(o);
            bench_backend("sqlite", *p, nullptr, rounds);
            std::remove(o.path.c_str());
        }
        if (const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI")) {
            auto o = providers::redis_options_from_uri(parse_provider_uri(uri));
            o.prefix = table;
            auto p = providers::make_redis_lock_provider(o);
            const auto n = redis_notifier(o);
            bench_backend("redis", *p, &n, rounds);
        }
        if (const char* uri = std::getenv("SHEDLOCK_TEST_POSTGRES_URI")) {
            auto o = providers::postgres_options::from_uri(parse_provider_uri(uri));
            o.table = table;
            o.create_schema_if_missing = true;
            auto p = providers::make_postgres_lock_provider(o);
            const auto n = postgres_notifier(uri);
            bench_backend("postgresql", *p, &n, rounds);
            pg_exec(pg_connect(uri).get(), "DROP TABLE " + table);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lock_wait_handover: %s\n", e.what());
        return 1;
    }
    return 0;
}
