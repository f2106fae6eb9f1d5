// A server that stops answering mid-session (a process stopped by SIGSTOP, a network that went
// silent), on every SQL server backend: the kernel still acknowledges TCP, so only a client-side deadline ends the
// wait. A private proxy stands in for the freeze; the shared server is never stopped.
#include "fake_server.hpp"
#include "sql_server_suite.hpp"
#ifdef SHEDLOCK_TEST_WITH_SCHEDULER
#include "http_get.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/status_server.hpp>
#endif

#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>

using namespace shedlock;
using namespace shedlock::test::sql_server;
using namespace std::chrono_literals;

namespace {

/// Forwards one client connection to the test server until frozen; then moves no byte more,
/// holding both connections open, until ended.
class freezable_proxy {
public:
    explicit freezable_proxy(int upstream_port)
        : server_([this, upstream_port](int client) { forward(client, upstream_port); }) {}
    ~freezable_proxy() { ended_ = true; }
    std::uint16_t port() const { return server_.port(); }
    void freeze() { frozen_ = true; }
    /// Closes both sides: a call still waiting gets an error and returns.
    void cut() { ended_ = true; }

private:
    void forward(int client, int upstream_port) {
        const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(upstream_port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) pump(client, upstream);
        ::close(upstream);
    }
    void pump(int client, int upstream) {
        char buf[16384];
        while (!ended_) {
            // Frozen: watch nothing (what is in flight stays unread), just look at the flags again.
            const short events = frozen_ ? 0 : POLLIN;
            pollfd fds[2] = {{frozen_ ? -1 : client, events, 0}, {frozen_ ? -1 : upstream, events, 0}};
            if (::poll(fds, 2, 20) <= 0) continue;
            for (int i = 0; i < 2; ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
                const auto n = ::recv(fds[i].fd, buf, sizeof buf, 0);
                if (n <= 0 || !test::write_all(fds[1 - i].fd, std::string(buf, static_cast<std::size_t>(n)))) return;
            }
        }
    }

    std::atomic<bool> frozen_{false}, ended_{false};
    test::fake_server server_;  // last: its thread stops before the flags above go away
};

/// The test server through `proxy`: one pooled connection (the proxy forwards one at a time),
/// a 1 s statement_timeout and a 2 s connect_timeout, so the provider's deadline is 3 s.
lock_options through(const freezable_proxy& proxy, const std::string& table) {
    auto o = options_for(table);
    o.host = "127.0.0.1";
    o.port = proxy.port();
    o.pool_size = 1;
    o.statement_timeout = 1s;
    o.connect_timeout = 2s;
    o.create_schema_if_missing = true;
    return o;
}

int test_server_port() { return backend().server_options().port; }

}  // namespace

SQL_SERVER_CASE("{name}: a server that stops answering fails the call instead of blocking it", "") {
    freezable_proxy proxy(test_server_port());
    const auto o = through(proxy, "frozen");
    auto provider = make_provider(o);
    REQUIRE(inspect(*provider).list_locks().empty());

    proxy.freeze();
    auto listing = std::async(std::launch::async, [&] { return inspect(*provider).list_locks(); });
    // The provider's deadline is statement_timeout + connect_timeout (3 s here); 60 s only keeps
    // a provider that waits forever from hanging the test.
    const bool answered = listing.wait_for(60s) == std::future_status::ready;
    if (!answered) proxy.cut();  // so that the stuck call returns and the failure can be reported
    REQUIRE(answered);
    try {
        (void)listing.get();
        FAIL("list_locks() on a frozen server returned records");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), Catch::Contains(backend().no_answer_error));
    }
    backend().exec("DROP TABLE IF EXISTS " + o.table);
}

#ifdef SHEDLOCK_TEST_WITH_SCHEDULER
SQL_SERVER_CASE("{name}: with the server frozen, the status server still answers /metrics and /healthz", "") {
    freezable_proxy proxy(test_server_port());
    const auto o = through(proxy, "frozen_status");
    auto provider = make_provider(o);
    memory_run_store runs;
    metrics_registry metrics;
    scheduler_options so;
    so.metrics = &metrics;
    scheduler tasks(*provider, runs, so);
    tasks.add(make_task("idle", [](task_context&) {}, fixed_rate(1h), lock_at_most_for("PT1M")));
    tasks.start();
    status_server_options http;
    http.port = 0;
    http.heartbeat_every = 0ms;  // nothing else on the one connection
    http.backend_timeout = 1s;
    auto server = serve_status(tasks, &metrics, http);
    REQUIRE(test::http_get(server->port(), "/healthz").status == 200);

    proxy.freeze();
    // Each answer within the status server's 1 s deadline; the test client's bound is 30 s.
    const auto health = test::http_get(server->port(), "/healthz");
    CHECK(health.status == 503);
    CHECK_THAT(health.body, Catch::Contains("backend unavailable"));
    CHECK(test::http_get(server->port(), "/metrics").status == 200);
    CHECK(test::http_get(server->port(), "/healthz").status == 503);
    // Destroying the server waits for the list_locks() that is stuck: the provider's 3 s deadline ends it.
    server.reset();
    tasks.stop(5s);
    backend().exec("DROP TABLE IF EXISTS " + o.table);
}
#endif
