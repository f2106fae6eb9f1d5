#include <shedlock/owner_token.hpp>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <set>

TEST_CASE("owner tokens are readable, unique and fit VARCHAR(255)", "[owner]") {
    std::set<std::string> seen;
    for (int i = 0; i < 10000; ++i) seen.insert(shedlock::make_owner_token());
    CHECK(seen.size() == 10000);
    const std::string token = *seen.begin();
    CHECK(token.size() <= 255);
    CHECK(token.find(":" + std::to_string(::getpid()) + ":") != std::string::npos);
    CHECK(token.rfind(shedlock::instance_id(), 0) == 0);
}

TEST_CASE("a forked child's owner tokens carry the child's pid, not the parent's", "[owner]") {
    (void)shedlock::make_owner_token();  // the parent's pid is known now
    int channel[2];
    REQUIRE(::pipe(channel) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        const auto token = shedlock::make_owner_token();
        const char verdict = token.find(":" + std::to_string(::getpid()) + ":") != std::string::npos ? 'y' : 'n';
        (void)!::write(channel[1], &verdict, 1);
        ::_exit(0);
    }
    ::close(channel[1]);
    char verdict = '?';
    CHECK(::read(channel[0], &verdict, 1) == 1);
    ::close(channel[0]);
    ::waitpid(child, nullptr, 0);
    CHECK(verdict == 'y');
}

TEST_CASE("process_of_owner: host, pid and a per-process nonce, empty for tokens not made here", "[owner]") {
    const auto token = shedlock::make_owner_token();
    const auto process = shedlock::process_of_owner(token);
    CHECK(process == shedlock::this_process());
    CHECK(process.rfind(shedlock::instance_id() + ":", 0) == 0);
    CHECK(process.size() == shedlock::instance_id().size() + 1 + 6);
    CHECK(shedlock::process_of_owner(shedlock::make_owner_token()) == process);  // one per process
    CHECK(shedlock::process_of_owner("web-1").empty());  // Java ShedLock: the host name alone
    CHECK(shedlock::process_of_owner("web-1:42:short").empty());
    CHECK(shedlock::process_of_owner(":abcdefghijklmnopqr").empty());
    CHECK(shedlock::process_of_owner("h:1:abcdefghijklmnopqr") == "h:1:abcdef");
}
