// Reaching the server, on every SQL server backend: a wrong password (never shown, not even by
// redaction), a closed port, and a server that accepts TCP and never answers.
#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace shedlock;
using namespace shedlock::test::sql_server;
using Catch::Matchers::Contains;

namespace {

/// A loopback listener that accepts connections (the kernel does) and never answers.
class silent_listener {
public:
    silent_listener() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        REQUIRE(::listen(fd_, 16) == 0);
        socklen_t len = sizeof addr;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
    }
    ~silent_listener() { ::close(fd_); }
    silent_listener(const silent_listener&) = delete;
    silent_listener& operator=(const silent_listener&) = delete;
    std::uint16_t port() const { return port_; }

private:
    int fd_;
    std::uint16_t port_ = 0;
};

}  // namespace

SQL_SERVER_CASE("{name}: a wrong password is access_denied and never shown", "") {
    const auto& b = backend();
    auto o = options_for("auth");
    o.password = "wrong-Pa55word";
    try {
        (void)make_provider(o);
        FAIL("connected with a wrong password");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::access_denied);
        CHECK_THAT(e.what(), Contains(b.auth_failure) && Contains(b.scheme + "://shedlock:***@") &&
                                 !Contains("wrong-Pa55word"));
    }
}

SQL_SERVER_CASE("{name}: a wrong password equal to the user name is not revealed by redaction", "") {
    // Regression: the password's text was replaced in the server's message, so a user shown
    // as "***" told the reader that the password was the user name.
    const auto& b = backend();
    auto o = options_for("auth_same");
    o.password = o.user;
    try {
        (void)make_provider(o);
        FAIL("connected with a wrong password");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::access_denied);
        CHECK_THAT(e.what(), Contains(b.user_in_auth_error(o.user)) && !Contains(b.redacted_user_in_auth_error));
    }
}

SQL_SERVER_CASE("{name}: an unreachable server fails fast with storage_error(unavailable)", "") {
    auto o = options_for("unreachable");
    // A port nobody listens on: refused, an answer that is not waited out. A connect_timeout far
    // beyond any stall of a loaded machine tells the two apart without a speed bound.
    o.connect_timeout = std::chrono::seconds{60};
    o.port = 9;
    auto start = std::chrono::steady_clock::now();
    try {
        (void)make_provider(o);
        FAIL("connected to a closed port");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), Contains("127.0.0.1:9") && !Contains(backend().password));
    }
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds{30});

    // A server that accepts TCP but never answers: bounded by connect_timeout.
    o.connect_timeout = std::chrono::seconds{2};
    silent_listener listener;
    o.port = listener.port();
    start = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(make_provider(o), storage_error);
    const auto waited = std::chrono::steady_clock::now() - start;
    CHECK(waited >= std::chrono::milliseconds{1500});  // it waited for an answer
    CHECK(waited < std::chrono::seconds{30});  // and gave up: a generous "does not hang", not a speed bound
}
