// The status server under hostile or unlucky conditions: more idle connections than descriptors,
// oversized requests, a backend that stops answering, and the small protocol points (Allow,
// the bearer scheme's case, what /healthz tells an anonymous caller, a warning for 0.0.0.0).
#include "http_get.hpp"
#include "unavailable_provider.hpp"
#include "wait_for.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/status_server.hpp>

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::http_get;
using shedlock::test::wait_for;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

status_server_options loopback(std::string token = {}) {
    status_server_options o;
    o.address = "127.0.0.1";
    o.port = 0;
    o.bearer_token = std::move(token);
    o.backend = "memory:";
    o.heartbeat_every = 0ms;
    return o;
}

/// A scheduler whose one task opens a file every 20 ms, counting the opens that failed (a
/// command the daemon starts needs descriptors the same way).
struct file_opening_scheduler {
    providers::memory_lock_provider locks;
    memory_run_store store;
    metrics_registry metrics;
    std::vector<std::string> warnings;
    std::mutex warnings_mutex;
    std::unique_ptr<scheduler> s;
    std::atomic<int> opened{0}, failed{0};

    explicit file_opening_scheduler(lock_provider* provider = nullptr) {
        scheduler_options o;
        o.metrics = &metrics;
        o.provider_name = "memory";
        o.warn = [this](const std::string& m) {
            std::lock_guard lock(warnings_mutex);
            warnings.push_back(m);
        };
        s = std::make_unique<scheduler>(provider ? *provider : locks, store, o);
        s->add(make_task("open-files", [this](task_context&) {
            const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd < 0) return void(++failed);
            ::close(fd);
            ++opened;
        }, fixed_rate(20ms), lock_at_most_for("PT10S")));
        s->start();
    }
    bool warned(const std::string& part) {
        std::lock_guard lock(warnings_mutex);
        return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) { return has(w, part); });
    }
};

/// Lowers this process's soft RLIMIT_NOFILE for the scope of a test.
class lowered_descriptor_limit {
public:
    explicit lowered_descriptor_limit(rlim_t soft) {
        ::getrlimit(RLIMIT_NOFILE, &saved_);
        rlimit lowered = saved_;
        lowered.rlim_cur = soft;
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
    }
    ~lowered_descriptor_limit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }

private:
    rlimit saved_{};
};

std::size_t open_descriptors() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
}

int connect_to(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// A child process holding `count` idle connections to `port` (its own descriptor table, so
/// this process's lowered limit counts only the server's side). Lives until destroyed.
class idle_clients {
public:
    idle_clients(std::uint16_t port, int count) {
        int ready[2], done[2];
        REQUIRE(::pipe(ready) == 0);
        REQUIRE(::pipe(done) == 0);
        rlimit own{};
        ::getrlimit(RLIMIT_NOFILE, &own);
        own.rlim_cur = own.rlim_max;  // the child raises the limit it inherited: only the server's side is lowered
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {  // only async-signal-safe calls from here on
            ::close(ready[0]);
            ::close(done[1]);
            ::setrlimit(RLIMIT_NOFILE, &own);
            int connected = 0;
            for (int i = 0; i < count; ++i) {
                const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
                sockaddr_in addr{};
                addr.sin_family = AF_INET;
                addr.sin_port = htons(port);
                addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) ++connected;
            }
            const char c = connected == count ? 'y' : 'n';
            (void)!::write(ready[1], &c, 1);
            char ignored;
            (void)!::read(done[0], &ignored, 1);  // returns when the parent closes its end
            ::_exit(0);
        }
        ::close(ready[1]);
        ::close(done[0]);
        done_ = done[1];
        pollfd p{ready[0], POLLIN, 0};
        // Connecting is quick; the generous bound only keeps a broken child from hanging the test.
        REQUIRE(::poll(&p, 1, 60'000) == 1);
        char c = 0;
        REQUIRE(::read(ready[0], &c, 1) == 1);
        ::close(ready[0]);
        all_connected_ = c == 'y';
    }
    ~idle_clients() {
        ::close(done_);
        ::waitpid(pid_, nullptr, 0);
    }
    bool all_connected() const { return all_connected_; }

private:
    pid_t pid_ = -1;
    int done_ = -1;
    bool all_connected_ = false;
};

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

/// Sends `bytes` on a fresh connection and returns what came back until the server closed (or
/// 30 s of silence passed).
std::string send_and_read(std::uint16_t port, const std::string& bytes) {
    const int fd = connect_to(port);
    REQUIRE(fd >= 0);
    timeval timeout{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    std::string raw;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) raw.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return raw;
}

/// list_locks() blocks while frozen, as a read from a server stopped by SIGSTOP does (or, with
/// `gives_up_after`, fails after that long, as a provider with its own client-side timeout
/// does); try_lock finds every lock held elsewhere.
class frozen_provider final : public lock_provider, public lock_inspector {
public:
    explicit frozen_provider(std::optional<std::chrono::milliseconds> gives_up_after = std::nullopt)
        : gives_up_after_(gives_up_after) {}
    bool supports_fencing() const override { return true; }
    lock_inspector* inspector() noexcept override { return this; }
    timestamp lock_time_now() override { return clock().now(); }
    std::vector<lock_record> list_locks() override {
        std::unique_lock lock(mutex_);
        const auto thawed = [this] { return !frozen_; };
        if (!gives_up_after_) thawed_.wait(lock, thawed);
        else if (!thawed_.wait_for(lock, *gives_up_after_, thawed) && ++gave_up)
            throw storage_error(storage_category::unavailable, "frozen: no answer within the client-side timeout");
        return {};
    }
    std::atomic<int> gave_up{0};  // list_locks() calls that failed
    void freeze() {
        std::lock_guard lock(mutex_);
        frozen_ = true;
    }
    void thaw() {
        {
            std::lock_guard lock(mutex_);
            frozen_ = false;
        }
        thawed_.notify_all();
    }

private:
    std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override { return std::nullopt; }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, std::chrono::milliseconds, std::chrono::milliseconds) override {
        return std::nullopt;
    }
    void do_force_release(const lock_record&, timestamp) override {}
    std::optional<std::chrono::milliseconds> gives_up_after_;
    std::mutex mutex_;
    std::condition_variable thawed_;
    bool frozen_ = false;
};

/// Threads that keep `count` connections open to `port`, each sending pipelined requests without
/// the token and never reading an answer (SO_RCVBUF small, as a client that stalls on purpose):
/// the server's answers pile up until it cannot write. A connection the server closes is opened
/// again at once, as a flood would.
class non_reading_flood {
public:
    non_reading_flood(std::uint16_t port, int count) {
        std::string one = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        for (int i = 0; i < 40'000; ++i) requests_ += one;
        for (int i = 0; i < count; ++i) threads_.emplace_back([this, port] { flood(port); });
    }
    ~non_reading_flood() {
        stop_ = true;
        for (auto& t : threads_) t.join();
    }
    int connections() const { return connections_.load(); }

private:
    void flood(std::uint16_t port) {
        while (!stop_) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            const int small = 2048;
            ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
            timeval tick{0, 100'000};  // to look at stop_ while a send blocks
            ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tick, sizeof tick);
            sockaddr_in addr{};
            addr.sin_family = AF_INET;
            addr.sin_port = htons(port);
            addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
                ++connections_;
                hold(fd);
            }
            ::close(fd);
        }
    }
    /// Sends, never reads, until the server closes the connection or the test ends.
    void hold(int fd) {
        std::size_t sent = 0;
        while (!stop_) {
            if (sent < requests_.size()) {
                const auto n = ::send(fd, requests_.data() + sent, requests_.size() - sent, MSG_NOSIGNAL);
                if (n > 0) sent += static_cast<std::size_t>(n);
                else if (errno != EAGAIN && errno != EWOULDBLOCK) return;
            } else {
                pollfd p{fd, POLLRDHUP, 0};
                if (::poll(&p, 1, 100) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) return;
            }
        }
    }
    std::string requests_;
    std::atomic<bool> stop_{false};
    std::atomic<int> connections_{0};
    std::vector<std::thread> threads_;
};

/// Threads that ask /healthz without the token, one connection per request, again and again.
class health_flood {
public:
    health_flood(std::uint16_t port, int count) {
        for (int i = 0; i < count; ++i)
            threads_.emplace_back([this, port] {
                while (!stop_)
                    if (http_get(port, "/healthz").status != 0) ++answered_;
            });
    }
    ~health_flood() {
        stop_ = true;
        for (auto& t : threads_) t.join();
    }
    int answered() const { return answered_.load(); }

private:
    std::atomic<bool> stop_{false};
    std::atomic<int> answered_{0};
    std::vector<std::thread> threads_;
};

/// Of `scrapes` authorized GET /metrics, one after the other, how many were not answered 200.
int failed_scrapes(std::uint16_t port, int scrapes) {
    int failed = 0;
    for (int i = 0; i < scrapes; ++i) failed += http_get(port, "/metrics", "Bearer s3cret").status != 200;
    return failed;
}

/// A server with the token s3cret and a cap of 8 over a frozen_provider, frozen from the start
/// and thawed first when the fixture ends (the server's backend thread may wait in it).
struct frozen_backend_server {
    frozen_provider backend;
    file_opening_scheduler app{&backend};
    std::unique_ptr<status_server> server;
    std::uint16_t port = 0;

    frozen_backend_server(std::optional<std::chrono::milliseconds> gives_up_after, std::chrono::milliseconds backend_timeout)
        : backend(gives_up_after) {
        auto options = loopback("s3cret");
        options.max_connections = 8;
        options.backend_timeout = backend_timeout;
        server = serve_status(*app.s, &app.metrics, options);
        port = server->port();
        backend.freeze();
    }
    ~frozen_backend_server() { backend.thaw(); }
};

}  // namespace

TEST_CASE("status server: idle connections beyond the cap leave descriptors for the tasks and room for /healthz",
          "[status_server]") {
    REQUIRE(open_descriptors() < 64);  // the limit below leaves the tasks ~190 descriptors of their own
    const lowered_descriptor_limit limit(256);
    file_opening_scheduler app;
    auto server = serve_status(*app.s, &app.metrics, loopback());
    REQUIRE(wait_for([&] { return app.opened.load() >= 3; }, 10s));

    const idle_clients idle(server->port(), 400);  // the figure: 400 idle sockets, ulimit -n 256
    CHECK(idle.all_connected());
    const int before = app.opened.load();
    REQUIRE(wait_for([&] { return app.opened.load() >= before + 25; }, 30s));  // tasks keep firing
    CHECK(app.failed.load() == 0);

    const auto health = http_get(server->port(), "/healthz");
    CHECK(health.status == 200);
    const auto metrics = http_get(server->port(), "/metrics");
    CHECK(metrics.status == 200);
    CHECK(has(metrics.body, "shedlock_http_connections_refused_total "));
    CHECK(has(metrics.body, "shedlock_http_connections_evicted_total "));
    CHECK_FALSE(has(metrics.body, "shedlock_http_connections_evicted_total 0\n"));  // the idle made room
    CHECK(app.failed.load() == 0);
}

TEST_CASE("status server: an oversized body or header is refused before it is buffered", "[status_server]") {
    file_opening_scheduler app;
    auto server = serve_status(*app.s, &app.metrics, loopback());
    const auto port = server->port();

    // The header announces a body that is never sent: only an early refusal answers at all.
    const auto announced = send_and_read(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n");
    CHECK(announced.rfind("HTTP/1.1 413 ", 0) == 0);
    const auto long_header = send_and_read(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(64 * 1024, 'a') +
                                                "\r\n\r\n");
    CHECK(long_header.rfind("HTTP/1.1 431 ", 0) == 0);

    // The 200 connections x 1 MiB took 178 MB; 32 of them held open must not hold their bodies.
    const std::string body(1 << 20, 'b');
    const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                                "\r\n\r\n" + body;
    const auto resident_before = resident_bytes();
    std::vector<int> open;
    for (int i = 0; i < 32; ++i) {
        const int fd = connect_to(port);
        REQUIRE(fd >= 0);
        timeval timeout{30, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);  // fails once the server refused
        char buf[512];
        (void)::recv(fd, buf, sizeof buf, 0);  // the answer (413 now), before the next connection
        open.push_back(fd);
    }
    const auto grown = resident_bytes() - std::min(resident_bytes(), resident_before);
    INFO("resident memory grew by " << grown / 1024 << " KiB");
    CHECK(grown < (std::size_t{16} << 20));
    for (int fd : open) ::close(fd);
    CHECK(http_get(port, "/healthz").status == 200);
}

TEST_CASE("status server: a frozen backend leaves /metrics answering and /healthz failing in bounded time",
          "[status_server]") {
    frozen_provider backend;
    file_opening_scheduler app(&backend);
    auto options = loopback();
    options.backend_timeout = 1s;
    auto server = serve_status(*app.s, &app.metrics, options);
    const auto port = server->port();
    REQUIRE(http_get(port, "/healthz").status == 200);
    backend.freeze();
    struct thaw_at_exit {
        frozen_provider& p;
        ~thaw_at_exit() { p.thaw(); }
    } thaw{backend};

    // Each answer must come within the server's backend deadline (1 s here, 5 s by default); the
    // test client gives up after 30 s, which is the bound asserted here.
    const auto first = http_get(port, "/healthz");
    CHECK(first.status == 503);
    CHECK(has(first.body, "backend"));
    CHECK(http_get(port, "/metrics").status == 200);
    CHECK(http_get(port, "/healthz").status == 503);
    CHECK(http_get(port, "/api/locks").status == 503);
    CHECK(http_get(port, "/metrics").status == 200);

    backend.thaw();
    CHECK(wait_for([&] { return http_get(port, "/healthz").status == 200; }, 30s));
}

// adversarial B1: answers a client never reads kept their connections "busy" until the 30 s
// write timeout, so a flood of them made every new connection (scrapes included) a 503.
TEST_CASE("status server: clients that pipeline requests and never read leave room for a scrape and /healthz",
          "[status_server]") {
    file_opening_scheduler app;
    auto options = loopback("s3cret");
    options.max_connections = 16;
    auto server = serve_status(*app.s, &app.metrics, options);
    const auto port = server->port();
    const non_reading_flood flood(port, 24);  // half again the cap, reconnecting whenever closed
    REQUIRE(wait_for([&] { return flood.connections() >= 24; }, 30s));

    // Allowed: a scrape pushed out by a burst of reconnections before its request was read.
    const int failed = failed_scrapes(port, 20);
    INFO(failed << " of 20 scrapes failed during the flood");
    CHECK(failed <= 2);
    CHECK(wait_for([&] { return http_get(port, "/healthz").status == 200; }, 30s));
    const auto metrics = http_get(port, "/metrics", "Bearer s3cret");
    CHECK_FALSE(has(metrics.body, "shedlock_http_connections_evicted_total 0\n"));
}

// adversarial B2: during a frozen backend, anonymous /healthz connections waited the backend
// deadline each and filled the cap: every authorized scrape got 503.
TEST_CASE("status server: a flood of anonymous /healthz during a frozen backend leaves room for a scrape",
          "[status_server]") {
    frozen_backend_server frozen(std::nullopt, 1s);
    const auto port = frozen.port;
    {
        const health_flood flood(port, 12);  // half again the cap
        const int failed = failed_scrapes(port, 20);
        INFO(failed << " of 20 scrapes failed during the flood");
        CHECK(failed <= 2);
        // Once the stuck call is older than the deadline, /healthz answers 503 at once instead of
        // holding a connection for the deadline: a fresh client gets its answer. (The flood's
        // answers, each 503, come only after the deadline of the first call.)
        REQUIRE(wait_for([&] { return flood.answered() >= 12; }, 30s));
        const auto health = http_get(port, "/healthz");
        CHECK(health.status == 503);
        CHECK(has(health.body, "backend unavailable"));
    }
    frozen.backend.thaw();
    CHECK(wait_for([&] { return http_get(port, "/healthz").status == 200; }, 30s));
}

// The same flood against a backend whose calls fail after a client-side timeout shorter than the
// deadline (the PostgreSQL provider's statement_timeout): each /healthz then waited for its own
// call in the queue and was pushed out by the flood before its turn, so a fresh client got no
// answer at all (the daemon: 213,798 of 213,862 closed in 20 s).
TEST_CASE("status server: during a backend outage a fresh /healthz gets the remembered failure at once",
          "[status_server]") {
    frozen_backend_server frozen(300ms, 5s);
    const auto port = frozen.port;
    {
        const health_flood flood(port, 12);  // half again the cap
        REQUIRE(wait_for([&] { return frozen.backend.gave_up.load() >= 1; }, 30s));  // a probe has failed
        int unanswered = 0;
        for (int i = 0; i < 20; ++i) {
            const auto health = http_get(port, "/healthz");
            unanswered += health.status != 503 || !has(health.body, "backend unavailable");
        }
        // Allowed: a probe that found no call under way, started its own and was pushed out.
        INFO(unanswered << " of 20 fresh /healthz got no 503 during the flood");
        CHECK(unanswered <= 2);
        CHECK(failed_scrapes(port, 20) <= 2);
        const auto detailed = http_get(port, "/healthz", "Bearer s3cret");
        CHECK(has(detailed.body, "client-side timeout"));
    }
    frozen.backend.thaw();
    CHECK(wait_for([&] { return http_get(port, "/healthz").status == 200; }, 30s));
}

TEST_CASE("status server: a percent escape without two hex digits is a 400", "[status_server]") {
    file_opening_scheduler app;
    auto server = serve_status(*app.s, &app.metrics, loopback());
    const auto port = server->port();
    // adversarial Q8b: from_chars took the sign of %-1 and decoded it to byte 0xFF.
    for (const char* query : {"task=%-1", "task=%+1", "task=%zz", "task=open%4", "task=%", "%-1=x", "task=%0x1"}) {
        INFO(query);
        const auto api = http_get(port, std::string("/api/runs?") + query);
        CHECK(api.status == 400);
        CHECK(has(api.body, "percent escape"));
        CHECK(http_get(port, std::string("/?") + query).status == 400);
    }
    CHECK(http_get(port, "/api/runs?task=%6Fpen-files").status == 200);
    CHECK(http_get(port, "/api/runs?task=%6fpen%2dfiles").status == 200);
}

TEST_CASE("status server: /healthz tells an anonymous caller only that the backend is unavailable",
          "[status_server]") {
    test::unavailable_provider down(
        "connection to server at \"db.internal\" (10.0.0.5), port 5432 failed: FATAL: password authentication "
        "failed for user \"orders_app\" database \"orders\"");
    file_opening_scheduler app(&down);
    auto server = serve_status(*app.s, &app.metrics, loopback("s3cret"));
    const auto anonymous = http_get(server->port(), "/healthz");
    CHECK(anonymous.status == 503);
    CHECK(has(anonymous.body, "backend unavailable"));
    for (const char* secret : {"db.internal", "10.0.0.5", "orders_app", "orders"}) {
        INFO(secret);
        CHECK_FALSE(has(anonymous.body, secret));
    }
    const auto authorised = http_get(server->port(), "/healthz", "Bearer s3cret");
    CHECK(authorised.status == 503);
    CHECK(has(authorised.body, "db.internal"));
}

TEST_CASE("status server: 405 names the allowed methods, and the bearer scheme is case-insensitive", "[status_server]") {
    file_opening_scheduler app;
    auto server = serve_status(*app.s, &app.metrics, loopback("s3cret"));
    const auto port = server->port();
    auto post = test::http_request(port, "POST", "/metrics", "Bearer s3cret");
    CHECK(post.status == 405);
    CHECK(post.headers["allow"] == "GET, HEAD");
    CHECK(http_get(port, "/api/tasks", "bearer s3cret").status == 200);
    CHECK(http_get(port, "/api/tasks", "BEARER s3cret").status == 200);
    CHECK(http_get(port, "/api/tasks", "bearer wrong").status == 401);
    CHECK(http_get(port, "/api/tasks", "bearers3cret").status == 401);
}

TEST_CASE("status server: listening on every address without a token is a warning", "[status_server]") {
    file_opening_scheduler app;
    auto open = loopback();
    open.address = "0.0.0.0";
    { auto server = serve_status(*app.s, &app.metrics, open); }
    CHECK(app.warned("0.0.0.0"));
    CHECK(app.warned("bearer token"));

    // adversarial Q5: 0.0.0.0 written as a v4-mapped IPv6 address takes every IPv4 address too.
    file_opening_scheduler mapped;
    open.address = "::ffff:0.0.0.0";
    { auto server = serve_status(*mapped.s, &mapped.metrics, open); }
    CHECK(mapped.warned("[::ffff:0.0.0.0]"));
    CHECK(mapped.warned("bearer token"));
    open.address = "0.0.0.0";

    file_opening_scheduler guarded;
    open.bearer_token = "s3cret";
    { auto server = serve_status(*guarded.s, &guarded.metrics, open); }
    CHECK_FALSE(guarded.warned("0.0.0.0"));
}
