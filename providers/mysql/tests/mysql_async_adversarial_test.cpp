// The non-blocking MariaDB driver under a hostile environment (issue 23, adversarial pass):
// broken servers (garbage or truncated handshakes, a reply cut mid-row), a frozen server with
// many calls in flight, no descriptors left, bad URIs, a dropped table, names that a text
// collation would fold. Each failure must be an error (never "held"), never a hang or a crash.
#include "fake_server.hpp"
#include "process_freeze.hpp"
#include "mysql_async_helpers.hpp"
#include "reply_dropping_proxy.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/lock_ops.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace shedlock::providers {
void register_mysql_provider(provider_registry& registry);
void register_mysql_async_driver(asio::async_registry& registry);
}  // namespace shedlock::providers

namespace shedlock::test::mysql_async {
namespace {

namespace net = boost::asio;
using std::chrono::milliseconds;
using shedlock::asio::errc;

/// The test server's URI with `query` appended.
std::string uri_with(const std::string& query) {
    const std::string base = mysql_server::uri();
    return base + (base.find('?') == std::string::npos ? '?' : '&') + query;
}

/// A table of this program's own (dropped afterwards), opened through open_async_backend.
struct adv_backend {
    explicit adv_backend(const std::string& query = "pool_size=2", std::string table_name = "") {
        table = table_name.empty() ? "shedlock_adv_" + std::to_string(::getpid()) : table_name;
        providers::register_mysql_provider(providers);
        providers::register_mysql_async_driver(drivers);
        session = shedlock::asio::open_async_backend(uri_with("create_schema=true&table=" + table + "&" + query),
                                                     io.get_executor(), {}, providers, drivers);
    }
    ~adv_backend() {
        session.reset();
        try {
            mysql_server::exec("DROP TABLE IF EXISTS " + table);
        } catch (...) {
        }
    }
    std::string table;
    provider_registry providers;
    shedlock::asio::async_registry drivers;
    net::io_context io;
    std::unique_ptr<shedlock::asio::async_session> session;
};

/// One try_lock's raw outcome (the failure keeps its message).
struct attempt {
    bool completed = false;
    std::exception_ptr failure;
    std::optional<lease> granted;
};

void start_attempt(shedlock::asio::lock_service& locks, const std::string& name, attempt& out,
                   milliseconds at_most = milliseconds(60000)) {
    locks.start_try_lock(lock_configuration(name, at_most), make_owner_token(),
                         [&out](std::exception_ptr e, std::optional<lease> l) {
                             out.completed = true;
                             out.failure = e;
                             out.granted = std::move(l);
                         });
}

attempt try_once(adv_backend& b, const std::string& name) {
    attempt out;
    start_attempt(b.session->locks(), name, out);
    b.io.restart();
    b.io.run();
    REQUIRE(out.completed);
    return out;
}

int open_descriptors() {
    return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                          std::filesystem::directory_iterator{}));
}

// ---- names: byte-for-byte, on both faces ----

TEST_CASE("mysql async adversarial: names that differ in case or a trailing space are different locks") {
    adv_backend b;
    for (const char* name : {"Job", "job", "a", "a ", "JOB "}) {
        const auto out = try_once(b, name);
        INFO(name << ": " << shedlock::asio::failure_message(out.failure));
        CHECK_FALSE(out.failure);
        CHECK(out.granted.has_value());
    }
    // The blocking provider on the same table: all five are held, six other bytes are free.
    auto& blocking = b.session->blocking().locks();
    CHECK_FALSE(blocking.try_lock(lock_configuration("job", std::chrono::minutes(1))));
    CHECK_FALSE(blocking.try_lock(lock_configuration("a ", std::chrono::minutes(1))));
    CHECK(blocking.try_lock(lock_configuration("jOb", std::chrono::minutes(1))));
    CHECK(blocking.try_lock(lock_configuration("a  ", std::chrono::minutes(1))));
}

// ---- the table dropped mid-run ----

TEST_CASE("mysql async adversarial: a dropped lock table fails every call as backend_error and never as held") {
    adv_backend b;
    REQUIRE(try_once(b, "before-drop").granted);
    mysql_server::exec("DROP TABLE " + b.table);
    for (const char* name : {"before-drop", "after-drop"}) {
        const auto out = try_once(b, name);
        INFO(name);
        REQUIRE(out.failure);
        CHECK_FALSE(out.granted);
        INFO(shedlock::asio::failure_message(out.failure));
        CHECK(shedlock::asio::to_error_code(out.failure) == errc::backend_error);
    }
}

TEST_CASE("mysql async adversarial: the lock table dropped with calls in flight never reads as held") {
    adv_backend b("pool_size=4");
    REQUIRE(try_once(b, "adv-drop-warm").granted);
    std::vector<attempt> out(200);
    for (int i = 0; i < 200; ++i) start_attempt(b.session->locks(), "adv-drop-flight-" + std::to_string(i), out[i]);
    std::thread dropper([&b] { mysql_server::exec("DROP TABLE " + b.table); });
    b.io.restart();
    b.io.run();
    dropper.join();
    int granted = 0;
    int failed = 0;
    for (const auto& a : out) {
        REQUIRE(a.completed);
        if (a.granted) ++granted;
        if (a.failure) {
            ++failed;
            INFO(shedlock::asio::failure_message(a.failure));
            CHECK(shedlock::asio::to_error_code(a.failure) == errc::backend_error);
        }
        CHECK((a.granted.has_value() || a.failure));  // distinct free names: never "held"
    }
    CHECK(granted + failed == 200);
}

// ---- bad URIs: an error naming the value, nothing sent ----

TEST_CASE("mysql async adversarial: bad URI values fail open_async_backend naming them and nothing is sent") {
    std::atomic<int> accepted{0};
    fake_server server([&accepted](int) { ++accepted; });
    const std::string base = "mysql://shedlock:adv-Secret-9f3@127.0.0.1:" + std::to_string(server.port()) + "/db?";
    provider_registry providers;
    shedlock::asio::async_registry drivers;
    providers::register_mysql_provider(providers);
    providers::register_mysql_async_driver(drivers);
    net::io_context io;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"pool_size=0", "pool_size"},
        {"pool_size=-3", "pool_size"},
        {"pool_size=99999999999999999999", "pool_size"},
        {"connect_timeout=-5s", "connect_timeout"},
        {"statement_timeout=-1s", "statement_timeout"},
        {"statement_timeout=99999999999999999h", "statement_timeout"},
        {"pool_wait=-1s", "pool_wait"},
        {"ssl_mode=VERIFY_CA&ssl_ca=/nonexistent/adv-ca.pem", "/nonexistent/adv-ca.pem"},
        {"ssl_cert=/nonexistent/adv-client.crt&ssl_key=/nonexistent/adv-client.key", "/nonexistent/adv-client"},
    };
    for (const auto& [query, named] : cases) {
        INFO(query);
        std::string message;
        try {
            auto s = shedlock::asio::open_async_backend(base + query, io.get_executor(), {}, providers, drivers);
            attempt out;
            start_attempt(s->locks(), "adv-bad-uri", out);
            io.restart();
            io.run_for(std::chrono::seconds(5));
            REQUIRE(out.completed);
            REQUIRE(out.failure);
            message = shedlock::asio::failure_message(out.failure);
        } catch (const std::exception& e) {
            message = e.what();
        }
        INFO(message);
        CHECK_THAT(message, Catch::Contains(named));
        CHECK_THAT(message, !Catch::Contains("adv-Secret-9f3"));
    }
    CHECK(accepted == 0);
}

TEST_CASE("mysql async adversarial: connect_timeout=0 connects as the blocking connection does") {
    // The URI accepts 0 (uri_options::duration); the blocking connection gives the connector its
    // least timeout (1 s), so the non-blocking one must not fail every connection at once.
    net::io_context io;
    auto c = connect(io, options("connect_timeout=0s"));
    CHECK(single(run(io, *c, "SELECT ?", {std::int64_t{7}})) == "7");
}

TEST_CASE("mysql async adversarial: huge timeouts the URI accepts still connect and run") {
    for (const char* query : {"connect_timeout=100000000h", "statement_timeout=100000000h", "connect_timeout=2000000h"}) {
        INFO(query);
        std::optional<providers::mysql_options> o;
        try {
            o = options(query);
        } catch (const std::exception& e) {
            INFO(e.what());
            CHECK_THAT(e.what(), Catch::Contains("timeout"));  // refused by name: fine as well
            continue;
        }
        net::io_context io;
        outcome<std::unique_ptr<connection>> out;
        start_connect(io, *o, out);
        io.run();
        REQUIRE(out.completed);
        INFO(shedlock::asio::failure_message(out.failure));
        REQUIRE(out.value);
        CHECK(single(run(io, *out.value, "SELECT ?", {std::int64_t{8}})) == "8");
    }
}

TEST_CASE("mysql async adversarial: a non-ASCII host fails naming it without a hang") {
    provider_registry providers;
    shedlock::asio::async_registry drivers;
    providers::register_mysql_provider(providers);
    providers::register_mysql_async_driver(drivers);
    net::io_context io;
    std::string message;
    try {
        auto s = shedlock::asio::open_async_backend(
            "mysql://shedlock:adv-Secret-9f3@h\xc3\xb4st-adv.invalid:3306/db?connect_timeout=2s", io.get_executor(), {},
            providers, drivers);
        attempt out;
        start_attempt(s->locks(), "adv-host", out);
        io.run_for(std::chrono::seconds(10));
        REQUIRE(out.completed);
        REQUIRE(out.failure);
        message = shedlock::asio::failure_message(out.failure);
    } catch (const std::exception& e) {
        message = e.what();
    }
    INFO(message);
    CHECK_THAT(message, Catch::Contains("h\xc3\xb4st-adv.invalid"));
    CHECK_THAT(message, !Catch::Contains("adv-Secret-9f3"));
}

// ---- the password never shows ----

TEST_CASE("mysql async adversarial: a wrong password fails as backend_error without the password in the message") {
    auto o = options();
    const std::string secret = "adv-Wrong-Pw-7c1";
    o.password = secret;
    net::io_context io;
    outcome<std::unique_ptr<connection>> out;
    start_connect(io, o, out);
    io.run();
    REQUIRE(out.completed);
    const std::string message = shedlock::asio::failure_message(out.failure);
    INFO(message);
    CHECK_THAT(message, !Catch::Contains(secret));
    CHECK_THAT(message, !Catch::Contains(mysql_server::password));
    CHECK(shedlock::asio::to_error_code(out.failure) == errc::backend_error);
}

// ---- broken servers ----

/// Connects to a fake server on `port` within connect_timeout=1500ms; the outcome.
outcome<std::unique_ptr<connection>> connect_to_fake(std::uint16_t port) {
    auto o = options("connect_timeout=1500ms");
    o.host = "127.0.0.1";
    o.port = port;
    net::io_context io;
    outcome<std::unique_ptr<connection>> out;
    start_connect(io, o, out);
    io.run_for(std::chrono::seconds(20));
    return out;
}

TEST_CASE("mysql async adversarial: garbage or truncated handshakes fail as errors within connect_timeout") {
    const std::vector<std::pair<const char*, std::string>> scripts = {
        {"garbage", std::string("\x05\x00\x00\x00garbagegarbage\xff\xfe", 20)},
        {"truncated then closed", std::string("\x64\x00\x00\x00\x0a" "5.5.5-", 11)},
        {"error packet", std::string("\x09\x00\x00\x00\xff\x10\x04" "Boom!!", 13)},
        {"huge length then nothing", std::string("\xff\xff\xff\x00\x0a", 5)},
    };
    for (const auto& [what, bytes] : scripts) {
        INFO(what);
        const bool hold_open = std::string(what) == "huge length then nothing";
        fake_server server([&bytes, hold_open](int fd) {
            write_all(fd, bytes);
            if (hold_open) (void)read_exactly(fd, 1);  // until the client gives up
        });
        const auto out = connect_to_fake(server.port());
        REQUIRE(out.completed);
        REQUIRE(out.failure);
        INFO(shedlock::asio::failure_message(out.failure));
        CHECK(out.error().advice() == retry_advice::safe);
        CHECK_FALSE(out.value);
    }
}

TEST_CASE("mysql async adversarial: many failed connects leave no descriptor behind") {
    fake_server garbage([](int fd) { write_all(fd, std::string("\x05\x00\x00\x00junk!", 9)); });
    std::uint16_t closed_port = 0;
    ::close(listen_on_loopback(closed_port, "mysql_async_adversarial_test"));
    std::uint16_t silent_port = 0;
    const int silent = listen_on_loopback(silent_port, "mysql_async_adversarial_test");  // never answers
    const int before = open_descriptors();
    int failed = 0;
    for (int i = 0; i < 60; ++i) {
        const std::uint16_t port = i % 3 == 0 ? garbage.port() : i % 3 == 1 ? closed_port : silent_port;
        auto o = options(i % 3 == 2 ? "connect_timeout=100ms" : "connect_timeout=2s");
        o.host = "127.0.0.1";
        o.port = port;
        net::io_context io;
        outcome<std::unique_ptr<connection>> out;
        start_connect(io, o, out);
        io.run();
        if (out.completed && out.failure && !out.value) ++failed;
    }
    CHECK(failed == 60);
    CHECK(open_descriptors() == before);
    ::close(silent);
}

/// A one-connection proxy to the real server that forwards the reply to the statement carrying
/// `marker` only up to half and then closes both sides (a server dying mid-row).
class truncating_proxy {
public:
    truncating_proxy(std::uint16_t upstream, std::string marker) : marker_(std::move(marker)) {
        listener_ = listen_on_loopback(port_, "truncating_proxy");
        thread_ = std::thread([this, upstream] { serve(upstream); });
    }
    ~truncating_proxy() {
        ::shutdown(listener_, SHUT_RDWR);
        thread_.join();
        ::close(listener_);
    }
    std::uint16_t port() const { return port_; }
    bool fired() const { return fired_; }

private:
    /// One connection at a time, as long as the listener is open; the cut happens once.
    void serve(std::uint16_t upstream) {
        for (;;) {
            const int client = accept_next(listener_);
            if (client < 0) return;
            const int server = ::socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in to{};
            to.sin_family = AF_INET;
            to.sin_port = htons(upstream);
            to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (::connect(server, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) relay(client, server);
            ::close(server);
            ::close(client);
        }
    }
    void relay(int client, int server) {
        bool armed = false;
        if (fired_) marker_.clear();  // later connections are relayed whole
        char buf[65536];
        for (;;) {
            pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
            if (::poll(fds, 2, 30000) <= 0) return;
            if (fds[0].revents) {
                const auto n = ::read(client, buf, sizeof buf);
                if (n <= 0) return;
                if (!marker_.empty() && std::string(buf, n).find(marker_) != std::string::npos) armed = true;
                if (!write_all(server, std::string(buf, n))) return;
            }
            if (fds[1].revents) {
                if (armed) std::this_thread::sleep_for(milliseconds(200));  // the whole reply arrived
                const auto n = ::read(server, buf, sizeof buf);
                if (n <= 0) return;
                if (armed) {
                    write_all(client, std::string(buf, n / 2));
                    fired_ = true;
                    return;
                }
                if (!write_all(client, std::string(buf, n))) return;
            }
        }
    }
    std::string marker_;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> fired_{false};
    std::thread thread_;
};

TEST_CASE("mysql async adversarial: a reply cut mid-row fails the statement in doubt and breaks the connection") {
    const auto real = options();
    truncating_proxy proxy(real.port, "ADV_TRUNCATE");
    auto o = options("connect_timeout=2s&statement_timeout=2s&ssl_mode=DISABLED");
    o.host = "127.0.0.1";
    o.port = proxy.port();
    net::io_context io;
    auto c = connect(io, o);
    auto out = execute(io, *c, "SELECT REPEAT('x', 20000) AS ADV_TRUNCATE UNION ALL SELECT REPEAT('y', 20000)");
    REQUIRE(proxy.fired());
    INFO(shedlock::asio::failure_message(out.failure));
    INFO("rows: " << out.value.rows.size() << " first: " << (out.value.rows.empty() || !out.value.rows[0][0] ? 0 : out.value.rows[0][0]->size()));
    REQUIRE(out.failure);
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::in_doubt);
    CHECK_FALSE(c->usable());
    auto again = execute(io, *c, "SELECT 1");
    CHECK(again.error().advice() == retry_advice::safe);  // not sent
}

TEST_CASE("mysql async adversarial: a prepared statement's reply cut mid-row fails in doubt") {
    const auto real = options();
    truncating_proxy proxy(real.port, "ADV_TRUNC_P");
    auto o = options("connect_timeout=2s&statement_timeout=2s&ssl_mode=DISABLED");
    o.host = "127.0.0.1";
    o.port = proxy.port();
    net::io_context io;
    auto c = connect(io, o);
    auto out = execute(io, *c, "SELECT REPEAT(?, 2000) UNION ALL SELECT REPEAT('y', 20000)",
                       {std::string("ADV_TRUNC_P")});
    REQUIRE(proxy.fired());
    INFO(shedlock::asio::failure_message(out.failure));
    REQUIRE(out.failure);
    CHECK(out.error().category() == storage_category::unavailable);
    CHECK(out.error().advice() == retry_advice::in_doubt);
    CHECK_FALSE(c->usable());
}

TEST_CASE("mysql async adversarial: a lock reply dropped by the network is in doubt and never held") {
    const auto real = options();
    reply_dropping_proxy proxy(real.port);
    const std::string host = "127.0.0.1:" + std::to_string(proxy.port());
    std::string uri = mysql_server::uri();
    const auto at = uri.find('@');
    const auto slash = uri.find('/', at);
    uri = uri.substr(0, at + 1) + host + uri.substr(slash);
    provider_registry providers;
    shedlock::asio::async_registry drivers;
    providers::register_mysql_provider(providers);
    providers::register_mysql_async_driver(drivers);
    net::io_context io;
    const std::string table = "shedlock_adv_drop_" + std::to_string(::getpid());
    auto s = shedlock::asio::open_async_backend(
        uri + (uri.find('?') == std::string::npos ? "?" : "&") + "ssl_mode=DISABLED&create_schema=true&table=" + table,
        io.get_executor(), {}, providers, drivers);
    proxy.arm("adv-dropped-reply-marker");
    attempt out;
    start_attempt(s->locks(), "adv-dropped-reply-marker", out);
    io.run_for(std::chrono::seconds(30));
    REQUIRE(out.completed);
    CHECK(proxy.fired());
    INFO(shedlock::asio::failure_message(out.failure));
    REQUIRE(out.failure);
    CHECK_FALSE(out.granted);
    CHECK(shedlock::asio::to_error_code(out.failure) == errc::in_doubt);
    s.reset();
    mysql_server::exec("DROP TABLE IF EXISTS " + table);
}

// ---- a frozen server, many calls in flight ----

/// SIGSTOPs the server of SHEDLOCK_TEST_MARIADB_DIR (its pid file) and SIGCONTs it when destroyed.
struct frozen_server {
    frozen_server() {
        const char* dir = std::getenv("SHEDLOCK_TEST_MARIADB_DIR");
        if (!dir) return;
        std::ifstream in(std::string(dir) + "/pid");
        in >> pid;
        if (pid > 0) stop_processes({pid});  // returns once every thread of mariadbd is stopped
    }
    ~frozen_server() { thaw(); }
    void thaw() {
        if (pid > 0) continue_processes({pid});
        pid = -1;
    }
    pid_t pid = -1;
};

TEST_CASE("mysql async adversarial: 64 calls on a SIGSTOPped server all fail within the timeouts while a timer ticks") {
    adv_backend b("pool_size=4&statement_timeout=1s&connect_timeout=1s");  // pool_wait: 5 s
    REQUIRE(try_once(b, "adv-warm").granted);
    frozen_server frozen;
    if (frozen.pid <= 0) FAIL("needs SHEDLOCK_TEST_MARIADB_DIR (a server of this test's own, see server.sh)");
    std::vector<attempt> out(64);
    for (int i = 0; i < 64; ++i) start_attempt(b.session->locks(), "adv-frozen-" + std::to_string(i), out[i]);
    int ticks = 0;
    int ticks_at_first = -1;
    net::steady_timer tick(b.io);
    std::function<void()> again = [&] {
        tick.expires_after(milliseconds(50));
        tick.async_wait([&](const boost::system::error_code& e) {
            if (e) return;
            ++ticks;
            const auto done = std::count_if(out.begin(), out.end(), [](const attempt& a) { return a.completed; });
            if (done > 0 && ticks_at_first < 0) ticks_at_first = ticks;
            if (done < 64 && ticks < 20 * 60) again();  // a guard: one minute at most
        });
    };
    again();
    b.io.restart();
    b.io.run();
    frozen.thaw();
    CHECK(ticks_at_first > 0);  // the timer fired while every call was still waiting
    int failed = 0;
    for (const auto& a : out) {
        REQUIRE(a.completed);
        CHECK_FALSE(a.granted);
        if (a.failure) ++failed;
    }
    CHECK(failed == 64);
    // Thawed, the service recovers.
    bool recovered = false;
    for (int i = 0; i < 5 && !recovered; ++i) recovered = try_once(b, "adv-after-thaw").granted.has_value();
    CHECK(recovered);
}

// ---- no descriptors left ----

TEST_CASE("mysql async adversarial: connects without descriptors left fail clearly and leak none", "[forked]") {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        int code = 0;
        try {
            net::io_context io;
            const auto o = options("connect_timeout=2s");
            // Warm up what the connector loads once (its library, TLS) before counting.
            outcome<std::unique_ptr<connection>> warm;
            start_connect(io, o, warm);
            io.run();
            warm.value.reset();
            io.restart();
            io.poll();
            const int before = open_descriptors();  // counts the directory's own descriptor too
            for (int extra : {0, 1, 2}) {
                // The limit bounds descriptor numbers: at the lowest free one, none can be opened.
                const int lowest_free = ::dup(0);
                ::close(lowest_free);
                rlimit low{static_cast<rlim_t>(lowest_free + extra), 0};
                rlimit old{};
                ::getrlimit(RLIMIT_NOFILE, &old);
                low.rlim_max = old.rlim_max;
                ::setrlimit(RLIMIT_NOFILE, &low);
                for (int i = 0; i < 50; ++i) {
                    outcome<std::unique_ptr<connection>> out;
                    start_connect(io, o, out);
                    io.restart();
                    io.run();
                    if (!out.completed) code = 10;
                    if (out.value) out.value.reset();  // connected after all: fine, closed again
                    else if (shedlock::asio::failure_message(out.failure).empty()) code = 11;
                    io.restart();
                    io.poll();
                }
                ::setrlimit(RLIMIT_NOFILE, &old);
                if (open_descriptors() != before) code = 20 + extra;
            }
        } catch (...) {
            code = 30;
        }
        ::_exit(code);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    INFO("child status " << status);
    REQUIRE(WIFEXITED(status));  // no crash
    CHECK(WEXITSTATUS(status) == 0);
}

// ---- destroyed with calls in flight, many threads ----

TEST_CASE("mysql async adversarial: destroying the service and the io_context with calls in flight") {
    auto b = std::make_unique<adv_backend>("pool_size=2&statement_timeout=5s");
    REQUIRE(try_once(*b, "adv-destroy-warm").granted);
    // Hold the table so that the lock statements wait on the server.
    MYSQL* holder = mysql_init(nullptr);
    const auto o = options();
    REQUIRE(mysql_real_connect(holder, o.host.c_str(), o.user.c_str(), o.password->c_str(), o.database.c_str(),
                               o.port, nullptr, 0));
    REQUIRE(mysql_query(holder, ("LOCK TABLES " + b->table + " WRITE").c_str()) == 0);
    std::vector<attempt> out(16);
    for (int i = 0; i < 16; ++i) start_attempt(b->session->locks(), "adv-destroy-" + std::to_string(i), out[i]);
    b->io.restart();
    b->io.run_for(milliseconds(500));
    b->session.reset();  // calls in flight
    b->io.restart();
    b->io.run_for(std::chrono::seconds(10));
    mysql_query(holder, "UNLOCK TABLES");
    mysql_close(holder);
    for (const auto& a : out) {
        if (!a.completed) continue;  // destroyed with the io_context below is fine as well
        CHECK_FALSE(a.granted);  // none granted by a service that is gone
    }
    b.reset();  // the io_context with whatever is left
    CHECK(true);
}

// KNOWN, OPEN (issue 23 closing note): a busy connection's MariaDB session holds its statement's
// completion itself (not only in a handler queued on the io_context), and that completion keeps the
// lock service and its pool (and so the connection) alive: destroying the io_context unrun with
// calls in flight leaks the busy connections until the process exits. Marked [!shouldfail] so that
// CI tracks it: it fails the run the day it passes, and the tag is then dropped.
TEST_CASE("mysql async adversarial: destroying the service then the io_context unrun with calls in flight",
          "[!shouldfail]") {
    const int fds_before = open_descriptors();
    auto b = std::make_unique<adv_backend>("pool_size=2&statement_timeout=5s");
    REQUIRE(try_once(*b, "adv-destroy2-warm").granted);
    MYSQL* holder = mysql_init(nullptr);
    const auto o = options();
    REQUIRE(mysql_real_connect(holder, o.host.c_str(), o.user.c_str(), o.password->c_str(), o.database.c_str(),
                               o.port, nullptr, 0));
    REQUIRE(mysql_query(holder, ("LOCK TABLES " + b->table + " WRITE").c_str()) == 0);
    std::vector<attempt> out(16);
    for (int i = 0; i < 16; ++i) start_attempt(b->session->locks(), "adv-destroy2-" + std::to_string(i), out[i]);
    b->io.restart();
    b->io.run_for(milliseconds(300));
    b->session.reset();
    mysql_query(holder, "UNLOCK TABLES");
    mysql_close(holder);
    b.reset();  // the io_context destroyed with the closed connections' completions queued
    for (const auto& a : out) CHECK_FALSE(a.granted);
    // Nothing is left: no socket of the pool's connections stays open (nor their memory).
    CHECK(open_descriptors() == fds_before);
}

TEST_CASE("mysql async adversarial: 256 lock cycles in flight on an io_context run by 4 threads") {
    adv_backend b("pool_size=4");
    std::atomic<int> acquired{0};
    std::atomic<int> failures{0};
    auto cycle = [&](int i) -> net::awaitable<void> {
        const lock_configuration config("adv-mt-" + std::to_string(i), std::chrono::minutes(1));
        auto held = co_await shedlock::asio::async_try_lock(b.session->locks(), config, net::use_awaitable);
        if (!held) co_return;
        ++acquired;
        co_await held->async_unlock(net::use_awaitable);
    };
    for (int i = 0; i < 256; ++i)
        net::co_spawn(b.io, cycle(i), [&](std::exception_ptr e) {
            if (e) ++failures;
        });
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) threads.emplace_back([&] { b.io.run(); });
    for (auto& t : threads) t.join();
    CHECK(failures == 0);
    CHECK(acquired == 256);
}

// ---- pool_wait expiry, KILL ----

TEST_CASE("mysql async adversarial: pool_wait expires while the only connection is busy") {
    adv_backend b("pool_size=1&statement_timeout=8s");  // past pool_wait (5 s)
    REQUIRE(try_once(b, "adv-pool-warm").granted);
    MYSQL* holder = mysql_init(nullptr);
    const auto o = options();
    REQUIRE(mysql_real_connect(holder, o.host.c_str(), o.user.c_str(), o.password->c_str(), o.database.c_str(),
                               o.port, nullptr, 0));
    REQUIRE(mysql_query(holder, ("LOCK TABLES " + b.table + " WRITE").c_str()) == 0);
    std::vector<attempt> out(4);
    for (int i = 0; i < 4; ++i) start_attempt(b.session->locks(), "adv-pool-" + std::to_string(i), out[i]);
    b.io.restart();
    b.io.run_for(std::chrono::seconds(20));
    mysql_query(holder, "UNLOCK TABLES");
    mysql_close(holder);
    int waited_out = 0;
    for (const auto& a : out) {
        REQUIRE(a.completed);
        CHECK_FALSE(a.granted);
        REQUIRE(a.failure);
        const auto message = shedlock::asio::failure_message(a.failure);
        INFO(message);
        if (message.find("pool_wait") != std::string::npos) {
            ++waited_out;
            CHECK(shedlock::asio::to_error_code(a.failure) == errc::backend_unavailable);
        }
    }
    CHECK(waited_out == 3);
}

TEST_CASE("mysql async adversarial: KILL of the pool's sessions while idle and mid-statement never reads as held") {
    adv_backend b("pool_size=2&statement_timeout=5s");
    REQUIRE(try_once(b, "adv-kill-warm").granted);
    auto kill_all = [] {
        for (const auto& id : mysql_server::first_column(
                 "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'shedlock' AND ID <> CONNECTION_ID()"))
            mysql_server::exec("KILL " + id);
    };
    kill_all();  // idle
    std::this_thread::sleep_for(milliseconds(200));
    bool granted = false;
    for (int i = 0; i < 3 && !granted; ++i) {
        const auto a = try_once(b, "adv-kill-idle");
        INFO(shedlock::asio::failure_message(a.failure));
        granted = a.granted.has_value();
        if (!granted) CHECK(a.failure);  // a failure, never "held"
    }
    CHECK(granted);
    // Mid-statement: the table is held so that the statement waits; then the session is killed.
    MYSQL* holder = mysql_init(nullptr);
    const auto o = options();
    REQUIRE(mysql_real_connect(holder, o.host.c_str(), o.user.c_str(), o.password->c_str(), o.database.c_str(),
                               o.port, nullptr, 0));
    REQUIRE(mysql_query(holder, ("LOCK TABLES " + b.table + " WRITE").c_str()) == 0);
    attempt mid;
    start_attempt(b.session->locks(), "adv-kill-mid", mid);
    std::thread killer([&] {
        std::this_thread::sleep_for(milliseconds(500));
        for (const auto& id : mysql_server::first_column(
                 "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'shedlock' AND COMMAND <> 'Sleep' AND "
                 "ID <> CONNECTION_ID() AND ID <> " + std::to_string(mysql_thread_id(holder))))
            mysql_server::exec("KILL " + id);
    });
    b.io.restart();
    b.io.run_for(std::chrono::seconds(10));
    killer.join();
    mysql_query(holder, "UNLOCK TABLES");
    mysql_close(holder);
    REQUIRE(mid.completed);
    INFO(shedlock::asio::failure_message(mid.failure));
    CHECK_FALSE(mid.granted);
    REQUIRE(mid.failure);
    CHECK(shedlock::asio::to_error_code(mid.failure) == errc::in_doubt);
}

// ---- the blocking connection under the same cut ----

TEST_CASE("mysql blocking adversarial: a listing cut mid-row fails instead of reading as no locks") {
    adv_backend b;  // the table, with locks of long names: a listing reply of many packets
    for (int i = 0; i < 300; ++i) REQUIRE(try_once(b, std::string(56, 'n') + std::to_string(i)).granted);
    const auto real = options();
    truncating_proxy proxy(real.port, "ORDER BY");
    std::string uri = mysql_server::uri();
    const auto at = uri.find('@');
    uri = uri.substr(0, at + 1) + "127.0.0.1:" + std::to_string(proxy.port()) + uri.substr(uri.find('/', at));
    auto blocking = open_backend(uri + (uri.find('?') == std::string::npos ? "?" : "&") +
                                     "ssl_mode=DISABLED&pool_size=1&statement_timeout=3s&table=" + b.table,
                                 {}, b.providers);
    std::string outcome_text;
    try {
        const auto records = blocking->inspector().list_locks();
        outcome_text = "listed " + std::to_string(records.size()) + " records";
        if (records.size() == 300) outcome_text = "retried: all 300";  // a whole listing after a retry is right
    } catch (const storage_error& e) {
        outcome_text = e.what();
        CHECK(e.advice() != retry_advice::permanent);
    }
    INFO(outcome_text);
    CHECK(proxy.fired());
    CHECK(outcome_text.find("listed") == std::string::npos);  // never a short (or empty) listing
}

}  // namespace
}  // namespace shedlock::test::mysql_async
