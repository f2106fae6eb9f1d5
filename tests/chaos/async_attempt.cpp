#include "async_attempt.hpp"

#include "chaos_clock.hpp"
#include "journal.hpp"
#include "planted_child.hpp"

#include <shedlock/asio/all_drivers.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/error.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace shedlock::chaos {
namespace {

using boost::asio::awaitable;
using boost::asio::redirect_error;
using boost::asio::use_awaitable;
using steady = std::chrono::steady_clock;

constexpr int exit_software = 70;  // the command could not be started (`shedlock run`: 71)
constexpr int exit_unavailable = 69;
constexpr int exit_locked = 75;
constexpr auto kill_grace = std::chrono::seconds{10};

void log_extend(const async_attempt_args& a, const char* kind, std::int64_t token, bool ok) {
    append_event(a.journal, {now_us(), kind, a.name, a.attempt, token, ok});
}

/// One extension of `held`, logged; false (the lock is lost) unless the backend confirmed it.
/// On a backend failure `held` keeps the old lease, so that it can still be released.
awaitable<bool> extend(const async_attempt_args& a, const lock_configuration& config, std::optional<asio::lock_handle>& held,
                       std::int64_t token) {
    log_extend(a, "extend_start", token, true);
    asio::error_code error;
    auto next = co_await held->async_extend(config.lock_at_most_for(), config.lock_at_least_for(),
                                            redirect_error(use_awaitable, error));
    const bool ok = !error && next.has_value();
    log_extend(a, ok ? "extend_ok" : "extend_lost", token, ok);
    held = std::move(next);
    co_return ok;
}

/// Runs the command under `held` until it exits; with keep-alive extends every at_most / 2, and
/// stops the command (SIGTERM to its group, SIGKILL 10 s later) when an extension fails.
awaitable<int> run_command(const async_attempt_args& a, const lock_configuration& config,
                           std::optional<asio::lock_handle>& held, bool& lost) {
    const std::int64_t token = held->fencing_token().value_or(-1);
    const pid_t pid = start_command(a.command, {"SHEDLOCK_LOCK_NAME=" + a.name, "SHEDLOCK_FENCING_TOKEN=" + std::to_string(token)});
    if (pid < 0) co_return exit_software;
    auto executor = co_await boost::asio::this_coro::executor;
    // Readable once the command exited: its end is awaited, never polled or blocked on.
    boost::asio::posix::stream_descriptor exit_watch(executor, static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    boost::asio::steady_timer timer(executor);
    bool exited = false;
    exit_watch.async_wait(boost::asio::posix::descriptor_base::wait_read, [&](const asio::error_code&) {
        exited = true;
        timer.cancel();
    });
    const auto interval = config.lock_at_most_for() / 2;
    auto next_extend = a.keep_alive ? steady::now() + interval : steady::time_point::max();
    auto kill_at = steady::time_point::max();
    while (!exited) {
        timer.expires_at(lost ? kill_at : next_extend);
        asio::error_code ignored;
        co_await timer.async_wait(redirect_error(use_awaitable, ignored));
        if (exited) break;
        if (lost && steady::now() >= kill_at) {
            ::kill(-pid, SIGKILL);
            kill_at = steady::time_point::max();
        } else if (!lost && steady::now() >= next_extend) {
            if (co_await extend(a, config, held, token)) {
                next_extend = steady::now() + interval;
            } else {
                lost = true;
                ::kill(-pid, SIGTERM);
                kill_at = steady::now() + kill_grace;
            }
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);  // it has exited: returns at once
    co_return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

awaitable<void> attempt(asio::lock_service& locks, const async_attempt_args& a, int& status) {
    const lock_configuration config{a.name, a.at_most, a.at_least};
    asio::error_code error;
    auto handle = co_await asio::async_try_lock(locks, config, redirect_error(use_awaitable, error));
    if (error) {
        std::fprintf(stderr, "lock backend unavailable: %s\n", error.message().c_str());
        status = exit_unavailable;
        co_return;
    }
    if (!handle) {
        status = exit_locked;
        co_return;
    }
    bool lost = false;
    status = co_await run_command(a, config, handle, lost);
    if (lost) std::fprintf(stderr, "lock \"%s\" was lost while the command ran; it was stopped\n", a.name.c_str());
    if (handle && handle->active()) {
        co_await handle->async_unlock(redirect_error(use_awaitable, error));
        if (error)
            std::fprintf(stderr, "releasing lock \"%s\" failed; it stays held until its lock_until: %s\n", a.name.c_str(),
                         error.message().c_str());
    }
}

}  // namespace

int run_async_attempt(const async_attempt_args& a) {
    register_all_async_drivers();
    boost::asio::io_context io;  // run by this thread alone
    std::unique_ptr<asio::async_session> session;
    asio::lock_service* locks = nullptr;
    // Opening connects (the session's parts open on first use: locks() too), as `shedlock run`
    // does before it locks; a missing table is a configuration error (78), as there.
    try {
        session = asio::open_async_backend(a.provider, io.get_executor());
        locks = &session->locks();
    } catch (const storage_error& e) {
        if (e.category() == storage_category::missing_schema) throw;
        std::fprintf(stderr, "lock backend unavailable: %s\n", e.what());
        return exit_unavailable;
    }
    int status = exit_software;
    boost::asio::co_spawn(io, attempt(*locks, a, status), [](std::exception_ptr failure) {
        if (failure) std::rethrow_exception(failure);
    });
    io.run();
    return status;
}

std::optional<async_attempt_args> parse_async_attempt(int argc, char** argv) {
    async_attempt_args a;
    if (argc < 2 || std::string(argv[1]) != "run") return std::nullopt;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") {
            a.command.assign(argv + i + 1, argv + argc);
            break;
        }
        if (arg == "--keep-alive") {
            a.keep_alive = true;
            continue;
        }
        if (i + 1 >= argc) return std::nullopt;
        const std::string value = argv[++i];
        if (arg == "--journal") a.journal = value;
        else if (arg == "--attempt") a.attempt = std::stoll(value);
        else if (arg == "-p") a.provider = value;
        else if (arg == "-n") a.name = value;
        else if (arg == "--at-most") a.at_most = value;
        else if (arg == "--at-least") a.at_least = value;
        else return std::nullopt;
    }
    if (a.journal.empty() || a.provider.empty() || a.name.empty() || a.at_most.empty() || a.command.empty())
        return std::nullopt;
    return a;
}

}  // namespace shedlock::chaos
