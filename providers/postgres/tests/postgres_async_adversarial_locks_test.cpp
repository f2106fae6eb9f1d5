// Locks through open_async_backend on the non-blocking PostgreSQL driver when the environment is
// hostile: the table dropped mid-run, every connection of the pool busy past pool_wait, no
// descriptor left for a new connection, bad URI values.
#include "postgres_async_helpers.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/async_connection_pool.hpp>

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace shedlock::providers {  // defined by the components; the umbrellas declare them
void register_postgres_provider(provider_registry& registry);
void register_postgres_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_adversarial_locks_test {

namespace pa = shedlock::test::postgres_async;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

std::string unique(const std::string& what) { return "adv_" + what + "_" + std::to_string(::getpid()); }

std::unique_ptr<shedlock::asio::async_session> open(boost::asio::io_context& io, const std::string& query) {
    shedlock::provider_registry providers;
    shedlock::providers::register_postgres_provider(providers);
    shedlock::asio::async_registry drivers;
    shedlock::providers::register_postgres_async_driver(drivers);
    return shedlock::asio::open_async_backend(shedlock::test::postgres_server::uri() + query, io.get_executor(), {},
                                              providers, drivers);
}

struct attempt {
    bool completed = false;
    error_code ec;
    std::optional<lock_handle> handle;
};

void start_lock(shedlock::asio::lock_service& locks, const std::string& name, attempt& out) {
    shedlock::asio::async_try_lock(locks, shedlock::lock_configuration(name, std::chrono::minutes(1)),
                                   [&out](error_code ec, std::optional<lock_handle> h) {
                                       out.completed = true;
                                       out.ec = ec;
                                       out.handle = std::move(h);
                                   });
}

pqxx::connection admin() {
    const auto o = pa::options();
    return pqxx::connection("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database +
                            " user=" + o.user + " password=" + o.password.value_or(""));
}

int open_descriptors() {
    int n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (::readdir(d)) ++n;
        ::closedir(d);
    }
    return n;
}

}  // namespace pg_async_adversarial_locks_test

TEST_CASE("postgres async adversarial: the table dropped mid-run fails backend_error and nothing counts as held",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    boost::asio::io_context io;
    const auto table = t::unique("dropped");
    auto session = t::open(io, "?create_schema=true&table=" + table);
    t::attempt first, second;
    t::start_lock(session->locks(), "before-drop", first);
    io.run();
    REQUIRE(first.completed);
    REQUIRE_FALSE(first.ec);
    REQUIRE(first.handle);
    {
        auto c = t::admin();
        pqxx::nontransaction(c).exec("DROP TABLE " + table);
    }
    t::start_lock(session->locks(), "after-drop", second);
    io.restart();
    io.run();
    REQUIRE(second.completed);
    CHECK(second.ec == shedlock::asio::errc::backend_error);
    CHECK_FALSE(second.handle);
    t::error_code unlocked;
    bool unlock_done = false;
    first.handle->async_unlock([&](t::error_code ec) { unlocked = ec, unlock_done = true; });
    io.restart();
    io.run();
    REQUIRE(unlock_done);
    CHECK(unlocked == shedlock::asio::errc::backend_error);
}

TEST_CASE("postgres async adversarial: with the only connection stuck a second call fails at pool_wait",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    boost::asio::io_context io;
    const auto table = t::unique("stuck");
    auto session = t::open(io, "?create_schema=true&pool_size=1&statement_timeout=30s&table=" + table);
    t::attempt warm;  // the table exists once a call ran
    t::start_lock(session->locks(), "warm", warm);
    io.run();
    REQUIRE(warm.handle);
    io.restart();
    auto blocker = t::admin();
    pqxx::work hold(blocker);
    hold.exec("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
    t::attempt stuck, waiting;
    t::start_lock(session->locks(), "stuck", stuck);
    t::start_lock(session->locks(), "waiting", waiting);
    while (!waiting.completed) io.run_one();
    CHECK(waiting.ec == shedlock::asio::errc::backend_unavailable);
    CHECK_FALSE(stuck.completed);
    hold.abort();
    while (!stuck.completed) io.run_one();
    CHECK_FALSE(stuck.ec);
    CHECK(stuck.handle);
    warm.handle.reset();
    stuck.handle.reset();
    io.restart();
    io.run();
}

TEST_CASE("postgres async adversarial: no descriptor left fails the call with an error and leaks none",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_locks_test;
    const pid_t child = ::fork();
    if (child == 0) {
        ::alarm(20);
        int status = 1;
        try {
            boost::asio::io_context io;
            auto session = t::open(io, "?create_schema=true&table=" + t::unique("nofile"));
            t::attempt warm;  // the reactor and the timer queue exist before the limit
            t::start_lock(session->locks(), "warm", warm);
            io.run();
            warm.handle.reset();
            io.restart();
            io.run();
            // The pool keeps one idle connection: the other calls at once need new ones, and
            // no descriptor is left for them (the holes below the limit filled).
            const int before = t::open_descriptors();
            rlimit old{};
            ::getrlimit(RLIMIT_NOFILE, &old);
            rlimit low{static_cast<rlim_t>(before + 8), old.rlim_max};
            ::setrlimit(RLIMIT_NOFILE, &low);
            std::vector<int> fillers;
            for (int fd; (fd = ::dup(0)) >= 0;) fillers.push_back(fd);
            std::vector<t::attempt> calls(4);
            for (std::size_t i = 0; i < calls.size(); ++i) t::start_lock(session->locks(), "nofile-" + std::to_string(i), calls[i]);
            io.restart();
            io.run();
            for (int fd : fillers) ::close(fd);
            ::setrlimit(RLIMIT_NOFILE, &old);
            int ok = 0, failed = 0;
            for (auto& c : calls) (c.ec ? failed : ok) += c.completed ? 1 : 0;
            calls.clear();
            io.restart();
            io.run();
            status = ok + failed == 4 && failed >= 1 && t::open_descriptors() <= before ? 0 : 2;
        } catch (...) {
            status = 3;
        }
        ::_exit(status);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("postgres async adversarial: bad pool values in the URI are refused naming them", "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    for (const std::string bad : {"pool_size=0", "pool_wait=-1", "pool_size=99999999999999999999", "pool_wait=1e400s"}) {
        boost::asio::io_context io;
        const auto name = bad.substr(0, bad.find('='));
        CHECK_THROWS_WITH(t::open(io, "?" + bad), Catch::Contains(name));
        CHECK_THROWS_WITH(t::open(io, "?" + bad), !Catch::Contains(t::pa::options().password.value_or("\x01")));
    }
}

TEST_CASE("postgres async adversarial: a non-ASCII host fails the call without the password",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    const std::string secret = "s3cr3t-\xc3\xa9-pw";
    auto o = t::pa::options("?connect_timeout=2s");
    o.host = "h\xc3\xb4st.invalid";
    o.password = secret;
    boost::asio::io_context io;
    t::pa::outcome<std::unique_ptr<t::pa::connection>> out;
    t::pa::start_connect(io, o, out);
    io.run();
    REQUIRE(out.completed);
    CHECK_THAT(out.error().what(), Catch::Contains("h\xc3\xb4st.invalid"));
    CHECK_THAT(out.error().what(), !Catch::Contains(secret));
}

TEST_CASE("postgres async adversarial: 256 calls from an io_context run by 4 threads all complete and release",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    boost::asio::io_context io;
    auto session = t::open(io, "?create_schema=true&pool_size=8&table=" + t::unique("threads"));
    std::vector<t::attempt> calls(256);
    for (std::size_t i = 0; i < calls.size(); ++i) t::start_lock(session->locks(), "thread-" + std::to_string(i), calls[i]);
    auto run4 = [&io] {
        io.restart();
        std::vector<std::thread> threads;
        for (int i = 0; i < 4; ++i) threads.emplace_back([&io] { io.run(); });
        for (auto& th : threads) th.join();
    };
    run4();
    int acquired = 0;
    for (const auto& c : calls) acquired += c.completed && !c.ec && c.handle ? 1 : 0;
    CHECK(acquired == 256);
    std::vector<t::error_code> released(calls.size());
    std::atomic<int> done{0};
    for (std::size_t i = 0; i < calls.size(); ++i)
        if (calls[i].handle) calls[i].handle->async_unlock([&released, &done, i](t::error_code ec) { released[i] = ec, ++done; });
    run4();
    CHECK(done.load() == acquired);
    CHECK(std::count(released.begin(), released.end(), t::error_code()) == 256);
}

// KNOWN, OPEN (issue 23 closing note): it does not crash, but LeakSanitizer finds the connections
// being opened (PGconn) leaked when the io_context is destroyed with calls in flight (the calls in
// flight keep the service and its pool alive); tagged [teardown_leak], run by the plain pass only.
TEST_CASE("postgres async adversarial: the io_context stopped with 64 calls in flight then the session and the "
          "io_context destroyed",
          "[postgres][async][adversarial][teardown_leak]") {
    namespace t = pg_async_adversarial_locks_test;
    std::vector<t::attempt> calls(64);
    {
        boost::asio::io_context io;
        auto session = t::open(io, "?create_schema=true&pool_size=4&table=" + t::unique("teardown"));
        for (std::size_t i = 0; i < calls.size(); ++i) t::start_lock(session->locks(), "teardown-" + std::to_string(i), calls[i]);
        for (int i = 0; i < 40; ++i) io.run_one();  // connections open, statements in flight
        io.stop();
        for (auto& c : calls) c.handle.reset();  // the handles' releases are queued, never run
        session.reset();
    }
    const auto completed = std::count_if(calls.begin(), calls.end(), [](const t::attempt& c) { return c.completed; });
    CHECK(completed < 64);
}

TEST_CASE("postgres async adversarial: a call that waited out pool_wait names a fix the URI accepts",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    boost::asio::io_context io;
    auto pool = std::make_shared<shedlock::providers::sql::async_connection_pool>(
        io.get_executor(), shedlock::providers::postgres_async_connections(t::pa::options()), 1,
        std::chrono::milliseconds(200));
    t::pa::outcome<t::pa::sql_result> slow, waiting;
    auto into = [](t::pa::outcome<t::pa::sql_result>& out) {
        return [&out](std::exception_ptr e, t::pa::sql_result r) { out.completed = true, out.failure = e, out.value = std::move(r); };
    };
    using shedlock::providers::sql::retry_policy;
    pool->execute("SELECT pg_sleep(1)", {}, false, retry_policy::when_safe, into(slow));
    pool->execute("SELECT 1", {}, false, retry_policy::when_safe, into(waiting));
    io.run();
    REQUIRE(slow.completed);
    CHECK_FALSE(slow.failure);
    REQUIRE(waiting.completed);
    CHECK(waiting.error().advice() == shedlock::retry_advice::safe);
    CHECK_THAT(waiting.error().what(), Catch::Contains("raise pool_size in the URI"));
    // pool_wait is no URI option (the URI refuses it): the message must not send anyone there.
    CHECK_THAT(waiting.error().what(), !Catch::Contains("pool_wait in the URI"));
}

TEST_CASE("postgres async adversarial: connect_timeout=0s connects as the blocking connection does",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    // The blocking connection gives libpq at least 1 s (libpq's 0 would wait for ever); a timer
    // of 0 failed every non-blocking connect at once.
    boost::asio::io_context io;
    t::pa::outcome<std::unique_ptr<t::pa::connection>> out;
    t::pa::start_connect(io, t::pa::options("?connect_timeout=0s"), out);
    io.run();
    REQUIRE(out.completed);
    if (out.failure) FAIL(shedlock::asio::failure_message(out.failure));
    CHECK(t::pa::value_of(t::pa::execute(io, *out.value, "SELECT 1")) == "1");
}

TEST_CASE("postgres async adversarial: the pool's idle connections terminated by the server then a lock call works",
          "[postgres][async][adversarial]") {
    namespace t = pg_async_adversarial_locks_test;
    boost::asio::io_context io;
    const auto table = t::unique("idle_killed");
    auto session = t::open(io, "?create_schema=true&pool_size=2&table=" + table);
    t::attempt before, after;
    t::start_lock(session->locks(), "idle-before", before);
    io.run();
    REQUIRE(before.handle);
    before.handle.reset();  // the release leaves the connection idle, its last query on the table
    io.restart();
    io.run();
    {
        auto c = t::admin();
        pqxx::nontransaction tx(c);
        const auto killed = tx.exec("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> "
                                    "pg_backend_pid() AND state = 'idle' AND query LIKE '%" + table + "%' "
                                    "AND application_name = 'shedlock-cpp'")[0][0].as<int>();
        REQUIRE(killed >= 1);
        for (int i = 0; i < 200 && tx.exec("SELECT count(*) FROM pg_stat_activity WHERE state = 'idle' AND query LIKE '%" +
                                           table + "%' AND application_name = 'shedlock-cpp' AND pid <> pg_backend_pid()")[0][0]
                                           .as<int>() > 0;
             ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    t::start_lock(session->locks(), "idle-after", after);
    io.restart();
    io.run();
    REQUIRE(after.completed);
    CHECK_FALSE(after.ec);  // safe: the pool opens a new connection and runs it there
    CHECK(after.handle);
    after.handle.reset();
    io.restart();
    io.run();
}
