// The non-blocking PostgreSQL connections together: many statements over a few connections on one
// thread and on strands of two threads, and locks through open_async_backend with the driver.
#include "postgres_async_helpers.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include <unistd.h>

#include <atomic>
#include <deque>
#include <functional>
#include <thread>

namespace shedlock::providers {  // defined by the components; the umbrellas declare them
void register_postgres_provider(provider_registry& registry);
void register_postgres_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_pool_test {

namespace pa = shedlock::test::postgres_async;

std::string unique(const std::string& what) { return "async_" + what + "_" + std::to_string(::getpid()); }

}  // namespace pg_async_pool_test

// The test cases below only.
namespace shedlock_providers = shedlock::providers;

TEST_CASE("postgres async: 64 statements queued over 4 connections run on one thread", "[postgres][async]") {
    boost::asio::io_context io;
    std::vector<std::unique_ptr<pg_async_pool_test::pa::connection>> pool;
    for (int i = 0; i < 4; ++i) pool.push_back(pg_async_pool_test::pa::connect(io));
    std::deque<int> queue;
    for (int i = 0; i < 64; ++i) queue.push_back(i);
    std::vector<std::string> answers(64);
    int in_flight = 0, most_in_flight = 0, failures = 0;
    std::function<void(pg_async_pool_test::pa::connection&)> next = [&](pg_async_pool_test::pa::connection& c) {
        if (queue.empty()) return;
        const int n = queue.front();
        queue.pop_front();
        most_in_flight = std::max(most_in_flight, ++in_flight);
        c.async_execute("SELECT $1::int * 2, pg_backend_pid()", {std::int64_t{n}}, false,
                        [&, n](std::exception_ptr e, shedlock_providers::sql::sql_result r) {
                            --in_flight;
                            if (e || r.rows.size() != 1) ++failures;
                            else answers[static_cast<std::size_t>(n)] = r.rows[0][0].value_or("NULL");
                            next(c);
                        });
    };
    for (auto& c : pool) next(*c);
    io.restart();
    io.run();
    CHECK(failures == 0);
    CHECK(most_in_flight == 4);
    for (int i = 0; i < 64; ++i) CHECK(answers[static_cast<std::size_t>(i)] == std::to_string(2 * i));
}

TEST_CASE("postgres async: locks through open_async_backend use the non-blocking driver", "[postgres][async]") {
    shedlock::provider_registry providers;
    shedlock_providers::register_postgres_provider(providers);
    shedlock::asio::async_registry drivers;
    shedlock_providers::register_postgres_async_driver(drivers);
    boost::asio::io_context io;
    const auto uri = shedlock::test::postgres_server::uri() + "?create_schema=true&table=" + pg_async_pool_test::unique("locks");
    auto session = shedlock::asio::open_async_backend(uri, io.get_executor(), {}, providers, drivers);
    REQUIRE(session->native_locks());
    CHECK_THAT(session->locks().describe(), Catch::Contains("non-blocking libpq"));

    std::optional<shedlock::asio::lock_handle> held;
    bool second_refused = false, released = false;
    const shedlock::lock_configuration config("async-pg-lock", std::chrono::minutes(1));
    shedlock::asio::async_try_lock(session->locks(), config, [&](shedlock::asio::error_code ec, std::optional<shedlock::asio::lock_handle> h) {
        REQUIRE_FALSE(ec);
        held = std::move(h);
        shedlock::asio::async_try_lock(session->locks(), config,
                                       [&](shedlock::asio::error_code ec2, std::optional<shedlock::asio::lock_handle> h2) {
                                           second_refused = !ec2 && !h2;
                                           held->async_unlock([&](shedlock::asio::error_code ec3) { released = !ec3; });
                                       });
    });
    io.run();
    CHECK(held.has_value());
    CHECK(second_refused);
    CHECK(released);
}

TEST_CASE("postgres async: statements on strands of a two-thread io_context all complete", "[postgres][async]") {
    boost::asio::io_context io;
    std::vector<std::unique_ptr<pg_async_pool_test::pa::connection>> pool;
    std::vector<boost::asio::strand<boost::asio::io_context::executor_type>> strands;
    std::atomic<int> opened{0}, answered{0}, wrong{0};
    for (int i = 0; i < 4; ++i) strands.push_back(boost::asio::make_strand(io));
    pool.resize(4);
    // On each connection 16 statements one after the other, each from the previous one's completion.
    std::function<void(std::size_t, int)> run;
    run = [&](std::size_t i, int n) {
        if (n == 16) return;
        pool[i]->async_execute("SELECT $1::int + 1", {std::int64_t{n}}, false,
                               [&, i, n](std::exception_ptr e, shedlock_providers::sql::sql_result r) {
                                   if (e || r.rows.size() != 1 || r.rows[0][0] != std::to_string(n + 1)) ++wrong;
                                   ++answered;
                                   run(i, n + 1);
                               });
    };
    for (std::size_t i = 0; i < 4; ++i)
        shedlock_providers::postgres_async_connections(pg_async_pool_test::pa::options())(
            strands[i], [&, i](std::exception_ptr e, std::unique_ptr<pg_async_pool_test::pa::connection> c) {
                if (e) return;
                pool[i] = std::move(c);
                ++opened;
                run(i, 0);
            });
    std::thread second([&] { io.run(); });
    io.run();
    second.join();
    CHECK(opened == 4);
    CHECK(answered == 64);
    CHECK(wrong == 0);
}
