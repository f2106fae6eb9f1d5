// The non-blocking Redis driver against a hostile server (adversarial pass, issue 23): a scripted
// listener (fake_server) answering garbage, impossible lengths, byte-by-byte replies and replies
// to nothing; a redis-server of the test's own frozen, with its clients killed or full; a process
// out of descriptors; an io_context torn down with calls in flight. Cases that could abort the
// process run in a forked child under alarm().
#include "fake_server.hpp"
#include "redis_own_server.hpp"
#include "redis_test_support.hpp"

#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/providers/redis_async.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <catch2/catch.hpp>

#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace net = boost::asio;
using namespace std::chrono_literals;
using shedlock::asio::errc;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

namespace {

constexpr const char* fake_sha = "0123456789abcdef0123456789abcdef01234567";

/// One RESP command read from the client: its arguments, empty when the client went away (or
/// nothing came within 5 s).
std::vector<std::string> read_command(int fd) {
    auto line = [fd]() -> std::string {
        std::string out;
        char c = 0;
        while (true) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 5000) <= 0 || ::read(fd, &c, 1) != 1) return "";
            if (c == '\n') return out;
            if (c != '\r') out += c;
        }
    };
    const std::string head = line();
    if (head.size() < 2 || head[0] != '*') return {};
    std::vector<std::string> args;
    for (int i = std::stoi(head.substr(1)); i > 0; --i) {
        const std::string length = line();
        if (length.size() < 2) return {};
        std::string arg = shedlock::test::read_exactly(fd, std::stoul(length.substr(1)) + 2);
        if (arg.empty()) return {};
        args.push_back(arg.substr(0, arg.size() - 2));
    }
    return args;
}

/// Reads until the client closes (or 5 s pass without a byte).
void drain(int fd) {
    while (!read_command(fd).empty()) {
    }
}

/// A session that answers SCRIPT LOAD with a SHA1 and every other command with `answer`.
std::function<void(int)> answering(std::string answer) {
    return [answer](int fd) {
        while (true) {
            const auto command = read_command(fd);
            if (command.empty()) return;
            const std::string reply = command[0] == "SCRIPT" ? "$40\r\n" + std::string(fake_sha) + "\r\n" : answer;
            if (!shedlock::test::write_all(fd, reply)) return;
        }
    };
}

shedlock::providers::redis_options fake_options(std::uint16_t port) {
    shedlock::providers::redis_options options;
    options.port = port;
    options.pool_size = 1;
    options.command_timeout = 300ms;
    options.connect_timeout = 300ms;
    return options;
}

struct outcome {
    bool completed = false;
    error_code ec;
    std::string message;
    std::optional<shedlock::lease> held;
};

/// One acquire on `io` (run by this thread, at most 20 s: a hang fails the test, not the run).
outcome acquire(net::io_context& io, shedlock::asio::lock_service& service, const std::string& name) {
    outcome result;
    service.start_try_lock({name, 10s}, "adversary", [&](std::exception_ptr failure, std::optional<shedlock::lease> l) {
        result.completed = true;
        result.ec = shedlock::asio::to_error_code(failure);
        result.message = shedlock::asio::failure_message(failure);
        result.held = std::move(l);
    });
    io.restart();
    io.run_for(20s);
    return result;
}

outcome acquire_from(const shedlock::providers::redis_options& options, const std::string& name) {
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
    return acquire(io, *service, name);
}

/// Runs `body` in a forked child (alarm 30 s); its exit status: 0 when it returned normally.
int in_child(const std::function<int()>& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::alarm(30);
        try {
            _exit(body());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child: %s\n", e.what());
            _exit(99);
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::size_t open_descriptors() {
    std::size_t n = 0;
    if (DIR* dir = ::opendir("/proc/self/fd")) {
        while (::readdir(dir) != nullptr) ++n;
        ::closedir(dir);
    }
    return n;
}

}  // namespace

TEST_CASE("redis async adversary: a server that accepts and never answers times out in doubt",
          "[redis][async][adversarial]") {
    shedlock::test::fake_server silent(drain);
    const auto result = acquire_from(fake_options(silent.port()), "silent");
    REQUIRE(result.completed);
    CHECK(result.ec == errc::in_doubt);
    CHECK(result.message.find("command_timeout=300ms") != std::string::npos);
    CHECK_FALSE(result.held);
}

TEST_CASE("redis async adversary: garbage and an invalid type byte fail the call", "[redis][async][adversarial]") {
    for (const std::string reply : {"hello world\r\n", "!7\r\n", "\x00\x01\x02\r\n"}) {
        shedlock::test::fake_server garbage(answering(reply));
        const auto result = acquire_from(fake_options(garbage.port()), "garbage");
        REQUIRE(result.completed);
        CHECK(result.ec == errc::in_doubt);
        CHECK_FALSE(result.held);
    }
}

TEST_CASE("redis async adversary: a bulk length of 2^62 waits and times out", "[redis][async][adversarial]") {
    shedlock::test::fake_server huge(answering("$4611686018427387904\r\nabc"));
    const auto result = acquire_from(fake_options(huge.port()), "huge-bulk");
    REQUIRE(result.completed);
    CHECK(result.ec == errc::in_doubt);
    CHECK_FALSE(result.held);
}

TEST_CASE("redis async adversary: overflowing bulk and array lengths do not crash", "[redis][async][adversarial]") {
    for (const std::string reply : {"$9223372036854775807\r\nab\r\n", "$9223372036854775806\r\nab\r\n",
                                    "*4611686018427387904\r\n", "*9223372036854775807\r\n:1\r\n"}) {
        shedlock::test::fake_server server(answering(reply));
        const auto options = fake_options(server.port());
        const int status = in_child([&] {
            const auto result = acquire_from(options, "overflow");
            return result.completed && result.ec && !result.held ? 0 : 1;
        });
        INFO("reply " << reply.substr(0, reply.find('\r')));
        CHECK(status == 0);
    }
}

TEST_CASE("redis async adversary: a reply split byte by byte is read whole", "[redis][async][adversarial]") {
    shedlock::test::fake_server slow([](int fd) {
        while (true) {
            const auto command = read_command(fd);
            if (command.empty()) return;
            const std::string reply = command[0] == "SCRIPT" ? "$40\r\n" + std::string(fake_sha) + "\r\n" : ":7\r\n";
            for (char c : reply) {
                if (!shedlock::test::write_all(fd, std::string(1, c))) return;
                std::this_thread::sleep_for(5ms);
            }
        }
    });
    auto options = fake_options(slow.port());
    options.command_timeout = 2s;
    const auto result = acquire_from(options, "slow");
    REQUIRE(result.completed);
    CHECK_FALSE(result.ec);
    REQUIRE(result.held);
    CHECK(result.held->fencing_token == 7);
}

TEST_CASE("redis async adversary: a reply to a command never sent does not abort the process",
          "[redis][async][adversarial]") {
    // The extra reply arrives with the real one (":7" then ":8"), or alone after it.
    for (const std::string reply : {":7\r\n:8\r\n", ":7\r\n+OK\r\n", ":7\r\n*1\r\n:1\r\n"}) {
        shedlock::test::fake_server chatty(answering(reply));
        const auto options = fake_options(chatty.port());
        const int status = in_child([&] {
            net::io_context io;
            auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
            const auto first = acquire(io, *service, "chatty");
            const auto second = acquire(io, *service, "chatty-2");
            // Whatever each says, both complete, and none reads the other's reply as its own.
            if (!first.completed || !second.completed) return 2;
            if (second.held && second.held->fencing_token != 7) return 3;
            return 0;
        });
        INFO("reply " << reply);
        CHECK(status == 0);
    }
}

// redis_errors.cpp (shared with the blocking provider) files "ERR max number of clients reached"
// as unavailable and safe: the server ran nothing (it was other/permanent before).
TEST_CASE("redis async adversary: max clients reached is a refusal safe to retry",
          "[redis][async][adversarial]") {
    // What redis-server does to one connection too many: an error reply at once, then close.
    shedlock::test::fake_server full([](int fd) {
        shedlock::test::write_all(fd, "-ERR max number of clients reached\r\n");
    });
    const auto result = acquire_from(fake_options(full.port()), "full");
    REQUIRE(result.completed);
    CHECK(result.ec == errc::backend_unavailable);  // nothing ran: safe to retry
    CHECK(result.message.find("max number of clients") != std::string::npos);
}

TEST_CASE("redis async adversary: an io_context destroyed unrun with calls in flight leaks no descriptor",
          "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.command_timeout = 5s;
    server.freeze();  // the kernel accepts the connections; nothing is answered
    const std::size_t before = open_descriptors();
    {
        net::io_context io;
        auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
        for (int i = 0; i < 16; ++i)
            service->start_try_lock({"unrun-" + std::to_string(i), 10s}, "adversary",
                                    [](std::exception_ptr, std::optional<shedlock::lease>) {});
        io.run_for(300ms);  // connected, the commands written and awaited
        service.reset();    // its shutdown is posted, never run: the application stopped the io_context
    }
    server.thaw();
    CHECK(open_descriptors() == before);
}

TEST_CASE("redis async adversary: out of descriptors gives a clear error and leaks none",
          "[redis][async][adversarial][forked]") {
    shedlock::test::own_redis_server server;
    const auto options = server.options();
    const int status = in_child([&] {
        net::io_context io;
        net::steady_timer warm(io, 1ms);  // the reactor's own descriptors, made before they run out
        warm.async_wait([](boost::system::error_code) {});
        io.run();
        auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
        const std::size_t before = open_descriptors();
        rlimit limit{};
        ::getrlimit(RLIMIT_NOFILE, &limit);
        const rlimit saved = limit;
        limit.rlim_cur = 64;
        if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return 2;
        std::vector<int> filler;  // every descriptor number below the limit taken
        for (int fd = ::dup(0); fd >= 0; fd = ::dup(0)) filler.push_back(fd);
        for (int i = 0; i < 50; ++i) {
            const auto result = acquire(io, *service, "starved");
            if (!result.completed) return 3;
            if (result.ec != errc::backend_unavailable) {
                std::fprintf(stderr, "out of descriptors: %s: %s\n", result.ec.message().c_str(), result.message.c_str());
                return 6;
            }
            if (result.message.find("open files") == std::string::npos) return 4;
        }
        for (int fd : filler) ::close(fd);
        ::setrlimit(RLIMIT_NOFILE, &saved);
        return open_descriptors() == before ? 0 : 5;
    });
    CHECK(status == 0);
}

TEST_CASE("redis async adversary: bytes pushed to an idle connection close it and the next call runs elsewhere",
          "[redis][async][adversarial]") {
    std::atomic<int> sessions{0};  // counted on the fake server's thread
    shedlock::test::fake_server pushy([&sessions](int fd) {
        ++sessions;
        while (true) {
            const auto command = read_command(fd);
            if (command.empty()) return;
            if (command[0] == "SCRIPT") {
                shedlock::test::write_all(fd, "$40\r\n" + std::string(fake_sha) + "\r\n");
                continue;
            }
            shedlock::test::write_all(fd, ":1\r\n");
            if (sessions == 1) shedlock::test::write_all(fd, ">2\r\n$7\r\nmessage\r\n$4\r\npush\r\n");  // unasked
        }
    });
    net::io_context io;
    auto service = shedlock::providers::make_redis_async_lock_service(fake_options(pushy.port()), io.get_executor());
    CHECK(acquire(io, *service, "first").held);
    std::this_thread::sleep_for(100ms);  // the push arrives while the connection idles
    const auto second = acquire(io, *service, "second");
    INFO(second.message);
    CHECK(second.held);  // not sent on the spoiled connection: run on a new one
    CHECK(sessions == 2);
    service.reset();
    io.restart();
    io.run();
}

TEST_CASE("redis async adversary: a reply arriving before its command was written is not taken as its answer",
          "[redis][async][adversarial]") {
    // SCRIPT LOAD answered twice: the second reply lands while the EVALSHA that follows it is
    // queued but not written; hiredis would hand it to that EVALSHA ("acquired, token 1").
    shedlock::test::fake_server early([](int fd) {
        while (true) {
            const auto command = read_command(fd);
            if (command.empty()) return;
            if (command[0] == "SCRIPT") shedlock::test::write_all(fd, "$40\r\n" + std::string(fake_sha) + "\r\n:1\r\n");
            else shedlock::test::write_all(fd, ":5\r\n");
        }
    });
    const auto options = fake_options(early.port());
    const int status = in_child([&] {
        const auto result = acquire_from(options, "early");
        if (!result.completed) return 2;
        if (result.held && result.held->fencing_token == 1) return 3;  // the script never ran
        return 0;
    });
    CHECK(status == 0);
}

TEST_CASE("redis async adversary: a service destroyed while four threads run its calls", "[redis][async][adversarial]") {
    shedlock::test::own_redis_server server;
    auto options = server.options();
    options.command_timeout = 5s;
    const std::size_t before = open_descriptors();
    std::atomic<int> completed{0};
    {
        net::io_context io;
        auto work = net::make_work_guard(io);
        std::vector<std::thread> threads;
        for (int i = 0; i < 4; ++i) threads.emplace_back([&io] { io.run(); });
        auto service = shedlock::providers::make_redis_async_lock_service(options, io.get_executor());
        for (int i = 0; i < 64; ++i)
            service->start_try_lock({"mt-" + std::to_string(i), 10s}, "adversary",
                                    [&completed](std::exception_ptr, std::optional<shedlock::lease>) { ++completed; });
        server.freeze();  // some written and awaited, some on their way
        std::this_thread::sleep_for(50ms);
        service.reset();
        work.reset();
        for (auto& t : threads) t.join();  // run() returns: nothing of the service is left
        server.thaw();
    }
    CHECK(completed <= 64);  // dropped or completed before the destruction, never after
    CHECK(open_descriptors() == before);
}

TEST_CASE("redis adversary: a server that echoes AUTH's arguments never gets the password into an error",
          "[redis][async][adversarial]") {
    // Regression (adversarial pass 32): with AUTH renamed away, Redis answers "ERR unknown command
    // 'AUTH', with args beginning with: '<password>'", and the error quoted the reply whole.
    const std::string secret = "Leaky_PW_4242";
    shedlock::test::fake_server echoing(
        answering("-ERR unknown command 'AUTH', with args beginning with: '" + secret + "' \r\n"));
    auto options = fake_options(echoing.port());
    options.password = secret;
    const auto async = acquire_from(options, "echo");
    REQUIRE(async.completed);
    CHECK(async.ec);
    CHECK_THAT(async.message, Catch::Contains("AUTH") && Catch::Contains("ERR") && !Catch::Contains(secret));
    auto blocking = shedlock::providers::make_redis_lock_provider(options);
    try {
        (void)blocking->try_lock({"echo", 10s});
        FAIL("acquired through a server that rejects AUTH");
    } catch (const shedlock::storage_error& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("rejected AUTH: \"ERR (the rest of the reply is not shown") &&
                                              !Catch::Contains(secret));
    }
}

TEST_CASE("redis adversary: a TIME reply that is not two bounded numbers is a storage_error, not a crash",
          "[redis][adversarial]") {
    // Regression (adversarial pass 32): std::stoll threw std::invalid_argument out of doctor's
    // connect check ("shedlock error: stoll", exit 70), and 2^63-1 seconds overflowed.
    for (const std::string reply : {"*2\r\n$3\r\nabc\r\n$3\r\ndef\r\n", "*2\r\n$-1\r\n$-1\r\n", "*2\r\n:1\r\n:2\r\n",
                                    "*2\r\n$25\r\n1234567890123456789012345\r\n$1\r\n0\r\n",
                                    "*2\r\n$19\r\n9223372036854775807\r\n$1\r\n0\r\n", "*2\r\n$10\r\n1700000000\r\n$7\r\n1000000\r\n",
                                    "*1\r\n$10\r\n1700000000\r\n"}) {
        shedlock::test::fake_server odd(answering(reply));
        auto provider = shedlock::providers::make_redis_lock_provider(fake_options(odd.port()));
        INFO(reply);
        try {
            (void)provider->inspector()->server_time();
            FAIL("an impossible TIME reply was taken");
        } catch (const shedlock::storage_error& e) {
            CHECK(e.category() == shedlock::storage_category::invalid_data);
            CHECK_THAT(std::string(e.what()), Catch::Contains("answered TIME with something other than two numbers"));
        }
    }
    shedlock::test::fake_server fine(answering("*2\r\n$10\r\n1700000000\r\n$6\r\n123456\r\n"));
    auto provider = shedlock::providers::make_redis_lock_provider(fake_options(fine.port()));
    CHECK(provider->inspector()->server_time() ==
          shedlock::timestamp{std::chrono::milliseconds{1'700'000'000'123}});
}
