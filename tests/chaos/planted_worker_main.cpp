// chaos_planted_worker: stands in for `shedlock run` in the planted-bug tests. Same command line
// shape, same exit statuses and messages, but the lock comes from an SQL provider with a bug
// planted in its dialect (planted_dialect.hpp), and every extension is logged to the journal
// so the analysis can see a holder extending a lock it no longer owns.
//
//   chaos_planted_worker run --bug BUG --journal FILE --attempt N -p URI -n NAME --at-most D
//                        [--at-least D] [--keep-alive] -- command...
#include "chaos_clock.hpp"
#include "journal.hpp"
#include "planted_child.hpp"
#include "planted_provider.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_handle.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace shedlock;
using namespace shedlock::chaos;

// The exit statuses of `shedlock run` (docs/crontab.md).
constexpr int exit_usage = 64;
constexpr int exit_unavailable = 69;
constexpr int exit_locked = 75;
constexpr int exit_config = 78;

struct worker_args {
    std::string bug, journal, provider, name, at_most, at_least = "PT0S";
    std::int64_t attempt = 0;
    bool keep_alive = false;
    std::vector<std::string> command;
};

std::optional<worker_args> parse(int argc, char** argv) {
    worker_args a;
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
        if (arg == "--bug") a.bug = value;
        else if (arg == "--journal") a.journal = value;
        else if (arg == "--attempt") a.attempt = std::stoll(value);
        else if (arg == "-p") a.provider = value;
        else if (arg == "-n") a.name = value;
        else if (arg == "--at-most") a.at_most = value;
        else if (arg == "--at-least") a.at_least = value;
        else return std::nullopt;
    }
    if (a.bug.empty() || a.journal.empty() || a.provider.empty() || a.name.empty() || a.at_most.empty() || a.command.empty())
        return std::nullopt;
    return a;
}

void log_extend(const worker_args& a, const char* kind, std::int64_t token, bool ok) {
    append_event(a.journal, {now_us(), kind, a.name, a.attempt, token, ok});
}

/// Runs the command under `handle`, extending every at_most / 2 with keep-alive; unlocks after.
int run_locked(const worker_args& a, const lock_configuration& config, lock_handle handle) {
    const std::int64_t token = handle.fencing_token().value_or(-1);
    std::optional<lock_handle> held(std::move(handle));
    const pid_t pid = start_command(a.command, {"SHEDLOCK_LOCK_NAME=" + a.name, "SHEDLOCK_FENCING_TOKEN=" + std::to_string(token)});
    if (pid < 0) return 71;
    auto extend = [&] {
        log_extend(a, "extend_start", token, true);
        std::optional<lock_handle> next;
        try {
            next = held->extend(config.lock_at_most_for(), config.lock_at_least_for());
        } catch (const storage_error&) {  // as the executor: ownership can no longer be proven
        }
        log_extend(a, next ? "extend_ok" : "extend_lost", token, next.has_value());
        if (next) held = std::move(next);
        else if (!held->active()) held.reset();
        return next.has_value();
    };
    bool lost = false;
    const auto interval = a.keep_alive ? config.lock_at_most_for() / 2 : std::chrono::milliseconds{0};
    const int status = wait_command(pid, interval, extend, lost);
    if (lost) std::fprintf(stderr, "lock \"%s\" was lost while the command ran; it was stopped\n", a.name.c_str());
    try {
        if (held && held->active()) held->unlock();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "releasing lock \"%s\" failed; it stays held until its lock_until: %s\n", a.name.c_str(), e.what());
    }
    return status;
}

int run(const worker_args& a) {
    const lock_configuration config{a.name, a.at_most, a.at_least};
    std::unique_ptr<lock_provider> provider;
    std::optional<lock_handle> handle;
    try {
        provider = open_planted_provider(parse_provider_uri(a.provider), parse_planted_bug(a.bug));
        handle = provider->try_lock(config);
    } catch (const storage_error& e) {
        std::fprintf(stderr, "lock backend unavailable: %s\n", e.what());
        return exit_unavailable;
    }
    if (!handle) return exit_locked;
    return run_locked(a, config, std::move(*handle));
}

}  // namespace

int main(int argc, char** argv) {
    const auto args = parse(argc, argv);
    if (!args) {
        std::fprintf(stderr, "usage: chaos_planted_worker run --bug BUG --journal FILE --attempt N -p URI -n NAME "
                             "--at-most D [--at-least D] [--keep-alive] -- command...\n");
        return exit_usage;
    }
    try {
        return run(*args);
    } catch (const std::exception& e) {  // configuration_error, a bug that could not be planted
        std::fprintf(stderr, "chaos_planted_worker: %s\n", e.what());
        return exit_config;
    }
}
