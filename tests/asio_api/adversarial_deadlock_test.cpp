// Adversarial: blocking calls made where they wait for themselves. Each runs in a child process
// that the test kills after a deadline, so a deadlock fails the case instead of hanging the suite.
#include "scripted_lock_service.hpp"

#include <shedlock/asio/blocking_lock_provider.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <csignal>
#include <future>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace std::chrono_literals;
using shedlock::lock_configuration;
using shedlock::asio::error_code;
using shedlock::asio::lock_handle;

namespace {

/// Runs `child` in a forked process; its exit code, or -1 when it was still running after `limit`.
template <typename Child>
int exit_code_within(std::chrono::seconds limit, Child child) {
    const pid_t pid = fork();
    if (pid == 0) _exit(child());
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(20ms);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

// Today the nested try_lock waits on the provider's own io thread for a completion only that
// thread can run: the child hangs (-1). Wanted: configuration_error naming the misuse (exit 0).
TEST_CASE("adversarial: blocking_lock_provider called inside its own service's completion does not deadlock") {
    const int code = exit_code_within(5s, [] {
        shedlock::asio::blocking_lock_provider provider([](shedlock::asio::lock_service::executor_type ex) {
            return std::make_unique<shedlock::test::scripted_lock_service>(std::move(ex));
        });
        std::promise<int> verdict;
        shedlock::asio::async_try_lock(provider.service(), lock_configuration("outer", 10s),
                                       [&](error_code, std::optional<lock_handle>) {
                                           try {
                                               (void)provider.try_lock(lock_configuration("inner", 10s));
                                               verdict.set_value(1);  // answered: no deadlock either
                                           } catch (const shedlock::configuration_error&) {
                                               verdict.set_value(0);
                                           } catch (...) {
                                               verdict.set_value(2);
                                           }
                                       });
        const int v = verdict.get_future().get();
        _exit(v == 1 ? 0 : v);  // skip the provider's destructor: the verdict is all
        return v;
    });
    INFO("exit code " << code << " (-1: still blocked after 5 s)");
    CHECK(code == 0);
}

// The provider's last owner lets go inside a completion, on the provider's own io thread: the
// destructor joins that very thread (std::thread::join on itself throws resource_deadlock_would_occur
// from a destructor: std::terminate). Wanted: no crash (exit 0).
TEST_CASE("adversarial: blocking_lock_provider destroyed on its own io thread does not terminate the process") {
    const int code = exit_code_within(5s, [] {
        auto provider = std::make_unique<shedlock::asio::blocking_lock_provider>(
            [](shedlock::asio::lock_service::executor_type ex) {
                return std::make_unique<shedlock::test::scripted_lock_service>(std::move(ex));
            });
        std::promise<void> destroyed;
        auto& service = provider->service();
        shedlock::asio::async_try_lock(service, lock_configuration("self-destroy", 10s),
                                       [&](error_code, std::optional<lock_handle> h) {
                                           if (h) (void)h->async_unlock([](error_code) {});
                                           provider.reset();
                                           destroyed.set_value();
                                       });
        destroyed.get_future().wait();
        _exit(0);
        return 0;
    });
    INFO("exit code " << code << " (134: aborted, -1: still blocked after 5 s)");
    CHECK(code == 0);
}
