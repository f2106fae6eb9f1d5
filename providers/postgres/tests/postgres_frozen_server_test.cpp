// A PostgreSQL server that stops answering mid-session (a process stopped by SIGSTOP, a network
// that went silent): the kernel still acknowledges TCP, so only a client-side deadline ends the
// wait. A private proxy stands in for the freeze; the shared server is never stopped.
#include "fake_server.hpp"
#include "postgres_test_server.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>

using namespace shedlock;
using namespace shedlock::providers;
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

}  // namespace

TEST_CASE("postgres: a server that stops answering fails the call instead of blocking it", "[postgres]") {
    auto o = postgres_options::from_uri(parse_provider_uri(test::postgres_server::uri()));
    freezable_proxy proxy(o.port);
    o.host = "127.0.0.1";
    o.port = proxy.port();
    o.table = "frozen_" + std::to_string(::getpid());
    o.pool_size = 1;  // the proxy forwards one connection
    o.statement_timeout = 1s;
    o.connect_timeout = 2s;
    o.create_schema_if_missing = true;
    auto provider = make_postgres_lock_provider(o);
    REQUIRE(provider->list_locks().empty());

    proxy.freeze();
    auto listing = std::async(std::launch::async, [&] { return provider->list_locks(); });
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
        CHECK_THAT(e.what(), Catch::Contains("no answer within 3 s"));
    }
    test::postgres_server::exec("DROP TABLE IF EXISTS " + o.table);
}
