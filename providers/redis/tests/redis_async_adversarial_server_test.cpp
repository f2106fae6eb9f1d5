// The non-blocking Redis driver on real redis-servers treated roughly (adversarial pass, issue
// 23): connections killed mid-pipeline, a server frozen under 256 calls, four threads on one
// io_context, bad URIs, a password that must never show, and lock names the blocking provider
// must see as the same locks.
#include "redis_own_server.hpp"
#include "reply_dropping_proxy.hpp"
#include "redis_test_support.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/redis_async.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace shedlock::providers {
void register_redis_provider(provider_registry& registry);
void register_redis_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

namespace net = boost::asio;
using namespace std::chrono_literals;
using shedlock::asio::errc;
using shedlock::asio::error_code;

namespace {

struct call_outcome {
    bool completed = false;
    error_code ec;
    std::string message;
    std::optional<shedlock::lease> held;
};

/// Starts one acquire per name; results[i] is filled when it completes (on io's threads).
void start_all(shedlock::asio::lock_service& service, const std::vector<std::string>& names,
               std::vector<call_outcome>& results, std::mutex& mutex, std::chrono::milliseconds at_most = 10s) {
    results.assign(names.size(), {});
    for (std::size_t i = 0; i < names.size(); ++i)
        service.start_try_lock({names[i], at_most}, "adversary-" + std::to_string(i),
                               [&results, &mutex, i](std::exception_ptr failure, std::optional<shedlock::lease> l) {
                                   std::lock_guard<std::mutex> lock(mutex);
                                   results[i] = {true, shedlock::asio::to_error_code(failure),
                                                 shedlock::asio::failure_message(failure), std::move(l)};
                               });
}

call_outcome acquire_one(net::io_context& io, shedlock::asio::lock_service& service, const std::string& name) {
    std::vector<call_outcome> results;
    std::mutex mutex;
    start_all(service, {name}, results, mutex);
    io.restart();
    io.run_for(20s);
    return results[0];
}

void unlock(net::io_context& io, shedlock::asio::lock_service& service, const shedlock::lease& held) {
    bool done = false;
    service.start_unlock(held, [&](std::exception_ptr failure) {
        CHECK_FALSE(failure);
        done = true;
    });
    io.restart();
    io.run_for(20s);
    CHECK(done);
}

std::vector<std::string> numbered(const std::string& base, int n) {
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.push_back(base + std::to_string(i));
    return names;
}

}  // namespace

TEST_CASE("redis async adversary: CLIENT KILL with 64 acquires in flight on one connection",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.pool_size = 1;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    // The killer kills every other client: the observer connects afresh after it.
    auto observe = [&options](const std::vector<std::string>& command) {
        return shedlock::test::raw_redis(options).text(command);
    };
    std::int64_t highest = acquire_one(io, *service, "fenced").held.value().fencing_token.value();
    observe({"DEL", "shedlock:{fenced}"});
    for (int round = 0; round < 5; ++round) {
        std::vector<call_outcome> results;
        std::mutex mutex;
        start_all(*service, std::vector<std::string>(64, "fenced"), results, mutex);
        // Round 0: CLIENT PAUSE holds all 64 on the server, then the kill (all in doubt); later
        // rounds: the kill lands at once or after a few hundred microseconds, mid-pipeline.
        shedlock::test::raw_redis killer_raw(options);
        if (round == 0) killer_raw.text({"CLIENT", "PAUSE", "10000", "WRITE"});
        std::thread killer([&] {
            std::this_thread::sleep_for(round == 0 ? 300ms : std::chrono::microseconds(150 * (round - 1)));
            killer_raw.text({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"});
            if (round == 0) killer_raw.text({"CLIENT", "UNPAUSE"});
        });
        io.restart();
        io.run_for(20s);
        killer.join();
        int holders = 0;
        for (const auto& r : results) {
            REQUIRE(r.completed);
            if (r.ec) {
                CHECK((r.ec == errc::in_doubt || r.ec == errc::backend_unavailable));
                CHECK_FALSE(r.held);
            } else if (r.held) {
                ++holders;
                CHECK(*r.held->fencing_token > highest);
                CHECK(observe({"GET", "shedlock:{fenced}"}) == r.held->owner);
            }
        }
        if (round == 0) CHECK(holders == 0);  // all 64 held on the server by the pause, then killed: in doubt
        CHECK(holders <= 1);  // one name: never two holders, whatever the kill did
        observe({"DEL", "shedlock:{fenced}"});  // as if it expired (an in-doubt acquire may hold it)
        const auto after = acquire_one(io, *service, "fenced");
        REQUIRE(after.held);
        CHECK(*after.held->fencing_token > highest);
        for (const auto& r : results)
            if (r.held) CHECK(*after.held->fencing_token > *r.held->fencing_token);
        highest = *after.held->fencing_token;
        observe({"DEL", "shedlock:{fenced}"});
    }
}

TEST_CASE("redis async adversary: a frozen server fails 256 calls across the pool while a timer ticks",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.command_timeout = 500ms;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    std::vector<call_outcome> warm;
    std::mutex mutex;
    start_all(*service, numbered("warm-", 4), warm, mutex);  // four connections open, scripts loaded
    io.run_for(20s);
    server.freeze();
    std::vector<call_outcome> results;
    start_all(*service, numbered("frozen-", 256), results, mutex);
    const auto started = std::chrono::steady_clock::now();
    auto last_done = started;
    int ticks = 0;
    net::steady_timer ticker(io);
    std::function<void()> tick = [&] {
        ticker.expires_after(20ms);
        ticker.async_wait([&](boost::system::error_code ec) {
            if (ec) return;
            ++ticks;
            if (std::all_of(results.begin(), results.end(), [](const call_outcome& r) { return r.completed; })) return;
            last_done = std::chrono::steady_clock::now();
            tick();
        });
    };
    tick();
    io.restart();
    io.run_for(20s);
    server.thaw();
    for (const auto& r : results) {
        REQUIRE(r.completed);
        CHECK(r.ec == errc::in_doubt);
        CHECK_FALSE(r.held);
    }
    CHECK(ticks >= 10);  // the thread kept running timers while 256 calls waited
    CHECK(last_done - started < 5s);  // a hang bound (command_timeout is 500 ms), not a speed test
    const auto after = acquire_one(io, *service, "after-thaw");
    CHECK(after.held);
}

TEST_CASE("redis async adversary: four threads on one io_context with 256 calls in flight",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(server.options(), io.get_executor());
    std::vector<call_outcome> results;
    std::mutex mutex;
    start_all(*service, numbered("threads-", 256), results, mutex);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) threads.emplace_back([&] { io.run_for(20s); });
    for (auto& t : threads) t.join();
    std::atomic<int> unlocked{0};  // counted on the io threads (Catch2 asserts on this one only)
    for (const auto& r : results) {
        REQUIRE(r.completed);
        CHECK_FALSE(r.ec);
        REQUIRE(r.held);
        service->start_unlock(*r.held, [&](std::exception_ptr failure) {
            if (!failure) ++unlocked;
        });
    }
    threads.clear();
    io.restart();
    for (int i = 0; i < 4; ++i) threads.emplace_back([&] { io.run_for(20s); });
    for (auto& t : threads) t.join();
    CHECK(unlocked == 256);
    shedlock::test::raw_redis raw(server.options());
    CHECK(raw.text({"EXISTS", "shedlock:{threads-0}"}) == "0");
}

TEST_CASE("redis async adversary: bad URI values name the value and the fix", "[redis][async][adversarial]") {
    shedlock::providers::register_redis_provider(shedlock::provider_registry::global());
    shedlock::providers::register_redis_async_driver(shedlock::asio::async_registry::global());
    net::io_context io;
    const std::vector<std::pair<std::string, std::string>> cases{
        {"redis://127.0.0.1:1/0?pool_size=0", "pool_size=0"},
        {"redis://127.0.0.1:1/0?pool_size=65", "pool_size=65"},
        {"redis://127.0.0.1:1/0?connect_timeout=-1s", "connect_timeout=-1s"},
        {"redis://127.0.0.1:1/0?command_timeout=0s", "command_timeout"},
        {"redis://127.0.0.1:1/99999", "99999"},
        {"redis://127.0.0.1:1/999999", "999999"},
        {"redis://127.0.0.1:1/-1", "-1"},
    };
    for (const auto& [uri, value] : cases) {
        INFO(uri);
        try {
            shedlock::asio::open_async_backend(uri, io.get_executor());
            FAIL("accepted");
        } catch (const shedlock::configuration_error& e) {
            const std::string message = e.what();
            INFO(message);
            CHECK(message.find(value) != std::string::npos);
        }
    }
}

TEST_CASE("redis async adversary: a huge command_timeout does not time calls out at once",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    shedlock::providers::register_redis_provider(shedlock::provider_registry::global());
    shedlock::providers::register_redis_async_driver(shedlock::asio::async_registry::global());
    net::io_context io;
    for (const std::string timeout : {"300000d", "9223372036854775807ms", "106751d"}) {
        const std::string uri = "redis://127.0.0.1:" + std::to_string(server.port()) +
                                "/0?command_timeout=" + timeout + "&connect_timeout=" + timeout;
        INFO(uri);
        try {
            auto session = shedlock::asio::open_async_backend(uri, io.get_executor());
            const auto result = acquire_one(io, session->locks(), "huge-timeout-" + timeout);
            INFO(result.message);
            CHECK(result.held);
            if (result.held) unlock(io, session->locks(), *result.held);
        } catch (const shedlock::configuration_error& e) {
            const std::string message = e.what();  // refused: then naming the value
            CHECK(message.find(timeout) != std::string::npos);
        }
    }
}

TEST_CASE("redis async adversary: a non-ASCII host fails unavailable naming it", "[redis][async][adversarial]") {
    net::io_context io;
    shedlock::providers::redis_options options;
    options.host = "h\xC3\xB4st.invalid";
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    const auto result = acquire_one(io, *service, "host");
    REQUIRE(result.completed);
    CHECK(result.ec == errc::backend_unavailable);
    CHECK(result.message.find(options.host) != std::string::npos);
}

TEST_CASE("redis async adversary: the password never appears in an error", "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    const std::string secret = "Adversary-Pw-4711";
    const std::string wrong = "Wrong-Pw-0815";
    {
        shedlock::test::raw_redis raw(server.options());
        raw.text({"CONFIG", "SET", "requirepass", secret});
    }
    auto options = server.options();
    options.password = secret;
    net::io_context io;
    std::vector<std::string> messages;
    auto failing = [&](shedlock::providers::redis_options o, const std::string& why) {
        auto service = shedlock::providers::make_redis_async_lock_service(o, io.get_executor());
        const auto result = acquire_one(io, *service, "pw");
        INFO(why << ": " << result.message);
        CHECK(result.ec);
        messages.push_back(result.message + " | " + service->describe());
    };
    auto bad_password = options;
    bad_password.password = wrong;
    failing(bad_password, "wrong password");
    auto bad_user = options;
    bad_user.user = "nobody";
    failing(bad_user, "unknown ACL user");
    auto bad_db = options;
    bad_db.db = 200;
    failing(bad_db, "database out of range");
    auto frozen = options;
    frozen.connect_timeout = 200ms;
    server.freeze();
    failing(frozen, "handshake never answered");
    server.thaw();
    try {
        shedlock::providers::register_redis_provider(shedlock::provider_registry::global());
        shedlock::providers::register_redis_async_driver(shedlock::asio::async_registry::global());
        shedlock::asio::open_async_backend("redis://:" + secret + "@127.0.0.1:" + std::to_string(server.port()) +
                                               "/0?pool_size=0",
                                           io.get_executor());
    } catch (const std::exception& e) {
        messages.push_back(e.what());
    }
    REQUIRE(messages.size() == 5);
    for (const auto& m : messages) {
        INFO(m);
        CHECK(m.find(secret) == std::string::npos);
        CHECK(m.find(wrong) == std::string::npos);
    }
}

TEST_CASE("redis async adversary: odd lock names are the blocking provider's locks", "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    const auto options = server.options();
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    auto blocking = shedlock::providers::make_redis_lock_provider(options);
    const std::vector<std::string> names{"case", "Case", "case ", " case", "{tag}", "a}b{", "{", "}",
                                         "\xC3\xBC\xE5\x90\x8D", "u\xCC\x88\xE5\x90\x8D", "*?[x]\\"};
    std::vector<shedlock::lease> held;
    for (const auto& name : names) {
        const auto result = acquire_one(io, *service, name);
        INFO("name \"" << name << "\": " << result.message);
        REQUIRE(result.held);  // distinct: none held by another name's acquire
        held.push_back(*result.held);
        CHECK_FALSE(blocking->try_lock({name, 10s}));  // the same lock to the blocking provider
    }
    for (const auto& lease : held) unlock(io, *service, lease);
    std::vector<std::optional<shedlock::lock_handle>> blocking_held;
    for (const auto& name : names) {
        blocking_held.push_back(blocking->try_lock({name, 10s}));
        INFO("name \"" << name << "\"");
        REQUIRE(blocking_held.back());
        const auto result = acquire_one(io, *service, name);
        CHECK_FALSE(result.ec);
        CHECK_FALSE(result.held);  // held elsewhere: by the blocking provider
    }
}

// As in redis_async_adversarial_test.cpp, on a real redis-server.
TEST_CASE("redis async adversary: maxclients 1 on a real server is backend_unavailable",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    shedlock::test::raw_redis raw(server.options());
    raw.text({"CONFIG", "SET", "maxclients", "1"});  // this connection is the one
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(server.options(), io.get_executor());
    const auto result = acquire_one(io, *service, "full");
    raw.text({"CONFIG", "SET", "maxclients", "100"});
    INFO(result.message);
    CHECK(result.ec == errc::backend_unavailable);
}

TEST_CASE("redis async adversary: SCRIPT FLUSH in a loop while 64 calls are in flight", "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.pool_size = 2;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    std::atomic<bool> flushing{true};
    std::thread flusher([&] {
        shedlock::test::raw_redis raw(options);
        while (flushing) raw.text({"SCRIPT", "FLUSH"});
    });
    for (int round = 0; round < 5; ++round) {
        std::vector<call_outcome> results;
        std::mutex mutex;
        const auto names = numbered("flush-" + std::to_string(round) + "-", 64);
        start_all(*service, names, results, mutex);
        io.restart();
        io.run_for(20s);
        shedlock::test::raw_redis raw(options);
        for (std::size_t i = 0; i < names.size(); ++i) {
            const auto& r = results[i];
            REQUIRE(r.completed);
            INFO(r.message);
            CHECK((r.held || r.ec == errc::backend_error));  // NOSCRIPT past the reloads: an error, never a wrong answer
            if (r.held) CHECK(raw.text({"GET", "shedlock:{" + names[i] + "}"}) == r.held->owner);
            else CHECK(raw.text({"EXISTS", "shedlock:{" + names[i] + "}"}) == "0");
        }
    }
    flushing = false;
    flusher.join();
    const auto after = acquire_one(io, *service, "after-flushes");
    CHECK(after.held);
}

TEST_CASE("redis async adversary: a reply lost on the way (acquire extend unlock) is in doubt or settled by the retry",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    shedlock::test::reply_dropping_proxy proxy(server.port());
    auto options = server.options();
    options.port = proxy.port();
    options.pool_size = 1;
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    auto observe = [&server](const std::vector<std::string>& command) {
        return shedlock::test::raw_redis(server.options()).text(command);
    };
    REQUIRE(acquire_one(io, *service, "warm-up").held);  // connected, scripts loaded

    // The acquire is applied, its answer lost: in doubt, never "held"; the lock is then held.
    proxy.arm("lost-acquire");
    const auto lost = acquire_one(io, *service, "lost-acquire");
    CHECK(proxy.fired());
    CHECK(lost.ec == errc::in_doubt);
    CHECK_FALSE(lost.held);
    CHECK(observe({"EXISTS", "shedlock:{lost-acquire}"}) == "1");
    const auto again = acquire_one(io, *service, "lost-acquire");
    CHECK_FALSE(again.ec);
    CHECK_FALSE(again.held);  // held elsewhere (by the lost acquire), not an error

    // Extend and unlock are owner-checked: the retry on a new connection settles them.
    const auto held = acquire_one(io, *service, "lost-extend");
    REQUIRE(held.held);
    proxy.arm(std::to_string(30000));  // the extend's at_most argument
    std::optional<shedlock::lease> extended;
    error_code extend_ec;
    service->start_extend(*held.held, 30s, 0ms, [&](std::exception_ptr failure, std::optional<shedlock::lease> l) {
        extend_ec = shedlock::asio::to_error_code(failure);
        extended = std::move(l);
    });
    io.restart();
    io.run_for(20s);
    CHECK(proxy.fired());
    CHECK_FALSE(extend_ec);
    CHECK(extended.has_value());
    const auto ttl = std::stoll(observe({"PTTL", "shedlock:{lost-extend}"}));
    CHECK(ttl > 10000);  // extended to 30 s, once or twice
    shedlock::test::reply_dropping_proxy unlock_proxy(server.port());
    options.port = unlock_proxy.port();
    auto unlocker = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    REQUIRE(acquire_one(io, *unlocker, "warm-up-2").held);
    unlock_proxy.arm("adversary-0");  // the owner: in the unlock's arguments
    unlock(io, *unlocker, extended ? *extended : *held.held);
    CHECK(unlock_proxy.fired());
    CHECK(observe({"EXISTS", "shedlock:{lost-extend}"}) == "0");
}
