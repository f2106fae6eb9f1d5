// The non-blocking PostgreSQL connection against a hostile server: a scripted listener that
// completes the startup handshake and then answers a statement with what no PostgreSQL would
// send for it (a row count past int64, COPY, garbage, a row cut off). Every statement must
// complete with a storage_error, io_context::run must neither throw nor spin, and no message
// may show the password. Statements run in a forked child with an alarm, so that a driver that
// spins on the executor fails the test instead of hanging it.
#include "postgres_async_helpers.hpp"

#include <fake_server.hpp>

#include <shedlock/asio/error.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

// Unity builds join this file with others: names of its own, qualified, no using-directives.
namespace pg_async_adversarial_test {

namespace pa = shedlock::test::postgres_async;
constexpr const char* password = "s3cr3t-adversarial-pw";

/// One protocol message: type byte, big-endian length (itself included), body.
std::string message(char type, const std::string& body) {
    const auto n = static_cast<std::uint32_t>(body.size() + 4);
    std::string out(1, type);
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xff));
    return out + body;
}

/// Reads the startup packet (sslmode=disable: no SSLRequest first), answers AuthenticationOk and
/// ReadyForQuery, reads the next message (the statement) and sends `reply` to it. Then closes
/// (`hang_up`) or waits for the client to close.
void play(int fd, const std::string& reply, bool hang_up) {
    const auto len = shedlock::test::read_exactly(fd, 4);
    if (len.size() != 4) return;
    const auto n = (static_cast<unsigned char>(len[0]) << 24) | (static_cast<unsigned char>(len[1]) << 16) |
                   (static_cast<unsigned char>(len[2]) << 8) | static_cast<unsigned char>(len[3]);
    if (shedlock::test::read_exactly(fd, n - 4).empty()) return;
    shedlock::test::write_all(fd, message('R', std::string(4, '\0')) + message('Z', "I"));
    char buf[4096];
    if (::read(fd, buf, sizeof buf) <= 0) return;
    shedlock::test::write_all(fd, reply);
    if (hang_up) return;
    while (::read(fd, buf, sizeof buf) > 0) {
    }
}

/// What the statement completed with, as the child saw it.
enum class verdict { storage_error = 10, succeeded = 11, other_exception = 12, run_threw = 13, not_completed = 14, shows_password = 15 };

int classify(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const shedlock::storage_error& err) {
        return std::string(err.what()).find(password) != std::string::npos ? static_cast<int>(verdict::shows_password)
                                                                            : static_cast<int>(verdict::storage_error);
    } catch (...) {
        return static_cast<int>(verdict::other_exception);
    }
}

/// In a child: connects to `port`, runs "UPDATE t SET x = 1" (a simple query), reports as the
/// exit status. The child is killed by SIGALRM when the driver does not complete within 10 s.
int run_in_child(std::uint16_t port) {
    const pid_t child = ::fork();
    if (child == 0) {
        ::alarm(10);
        int status = static_cast<int>(verdict::not_completed);
        try {
            boost::asio::io_context io;
            const auto o = shedlock::providers::postgres_options::from_uri(shedlock::parse_provider_uri(
                "postgresql://shedlock:" + std::string(password) + "@127.0.0.1:" + std::to_string(port) +
                "/db?sslmode=disable&connect_timeout=2s&statement_timeout=2s"));
            std::unique_ptr<pa::connection> c;
            shedlock::providers::postgres_async_connections(o)(io.get_executor(), [&](std::exception_ptr e, auto conn) {
                if (e) status = classify(e);
                c = std::move(conn);
                if (!c) return;
                c->async_execute("UPDATE t SET x = 1", {}, false, [&](std::exception_ptr f, pa::sql_result) {
                    status = f ? classify(f) : static_cast<int>(verdict::succeeded);
                });
            });
            io.run();
        } catch (...) {
            status = static_cast<int>(verdict::run_threw);
        }
        ::_exit(status);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/// A server that answers the startup packet with `reply` (then hangs up, or waits).
int handshake_against(const std::string& reply, bool hang_up) {
    shedlock::test::fake_server server([reply, hang_up](int fd) {
        const auto len = shedlock::test::read_exactly(fd, 4);
        if (len.size() != 4) return;
        const auto n = (static_cast<unsigned char>(len[2]) << 8) | static_cast<unsigned char>(len[3]);
        if (shedlock::test::read_exactly(fd, n - 4).empty()) return;
        shedlock::test::write_all(fd, reply);
        char buf[4096];
        while (!hang_up && ::read(fd, buf, sizeof buf) > 0) {
        }
    });
    return run_in_child(server.port());
}

/// Runs the statement against a server that answers it with `reply` (then hangs up).
int against(const std::string& reply, bool hang_up = false) {
    shedlock::test::fake_server server([reply, hang_up](int fd) { play(fd, reply, hang_up); });
    return run_in_child(server.port());
}

}  // namespace pg_async_adversarial_test

TEST_CASE("postgres async adversarial: a command tag whose row count exceeds int64 fails the statement and run() does "
          "not throw",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    const auto reply = t::message('C', std::string("UPDATE 99999999999999999999999") + '\0') + t::message('Z', "I");
    CHECK(t::against(reply) == static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: a COPY IN answer fails the statement instead of spinning the executor",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    // CopyInResponse: text format, no columns.
    CHECK(t::against(t::message('G', std::string(3, '\0'))) == static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: a COPY OUT answer fails the statement instead of spinning the executor",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    CHECK(t::against(t::message('H', std::string(3, '\0'))) == static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: garbage bytes as the answer fail the statement", "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    CHECK(t::against(std::string("\x01\x02garbage that is no protocol message at all\xff")) ==
          static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: a truncated message then a close fails the statement",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    // A RowDescription announcing 100 bytes, of which 3 arrive; play() then waits, so the
    // client's deadline (statement_timeout + connect_timeout) ends it.
    CHECK(t::against(std::string("T\0\0\0\x64\0\x01", 7)) == static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: a close in the middle of a row fails the statement",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    // RowDescription of one text column, then a DataRow announcing 100 bytes of which 4 arrive.
    const auto description = t::message('T', std::string("\0\x01x\0\0\0\0\0\0\0\0\0\0\x19\xff\xff\xff\xff\xff\xff\0\0", 22));
    CHECK(t::against(description + std::string("D\0\0\0\x64\0\x01\0\0", 9), true) ==
          static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: an answer that never comes fails at the client deadline",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    CHECK(t::against("") == static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: garbage as the answer to the startup packet fails the connect",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    CHECK(t::handshake_against(std::string("HTTP/1.1 400 Bad Request\r\n\r\n"), true) ==
          static_cast<int>(t::verdict::storage_error));
    CHECK(t::handshake_against(std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8), false) ==
          static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: a startup answer cut off fails the connect", "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    // AuthenticationOk announced with 8 bytes, 2 sent; then a close, or nothing until connect_timeout.
    CHECK(t::handshake_against(std::string("R\0\0\0\x08\0", 6), true) == static_cast<int>(t::verdict::storage_error));
    CHECK(t::handshake_against(std::string("R\0\0\0\x08\0", 6), false) == static_cast<int>(t::verdict::storage_error));
}

TEST_CASE("postgres async adversarial: a server that asks for the password and refuses it does not show it",
          "[postgres][async][adversarial][forked]") {
    namespace t = pg_async_adversarial_test;
    // AuthenticationCleartextPassword, then (after libpq sent it) a FATAL 28P01.
    const auto refusal = t::message('E', std::string("SFATAL\0C28P01\0Mpassword authentication failed\0\0", 47));
    shedlock::test::fake_server server([&](int fd) {
        const auto len = shedlock::test::read_exactly(fd, 4);
        if (len.size() != 4) return;
        const auto n = (static_cast<unsigned char>(len[2]) << 8) | static_cast<unsigned char>(len[3]);
        if (shedlock::test::read_exactly(fd, n - 4).empty()) return;
        shedlock::test::write_all(fd, t::message('R', std::string("\0\0\0\x03", 4)));
        char buf[4096];
        if (::read(fd, buf, sizeof buf) <= 0) return;
        shedlock::test::write_all(fd, refusal);
    });
    CHECK(t::run_in_child(server.port()) == static_cast<int>(t::verdict::storage_error));
}
