// shedlock run: run a command only when the cluster-wide lock was acquired.
#include "run_command.hpp"

#include "child_process.hpp"
#include "config_module.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "provider_factory.hpp"
#include "usage_error.hpp"

#include <shedlock/error.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/lock_wait.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/provider_registry.hpp>

#include <cstring>

namespace shedlock::cli {

const char* const run_footer = R"(
Exit status: the command's own status when it ran (128+N when killed by signal N);
  75 (or --skipped-exit) when another holder had the lock and the command did not run (with
  --wait: still held when the wait ran out);
  69 (or --unavailable-exit) when the lock backend could not be reached (78 when it refused the
  statement: a server error that no retry mends);
  124 when --timeout stopped the command; 71 when the command could not be started;
  78 for a bad configuration (duration, URI, name, a missing lock table); 64 for a bad command line.
With --once-key KEY the command runs at most once successfully per KEY (docs/idempotency.md): after
the lock, KEY is claimed; a KEY completed before exits 79 (or --done-exit) without running the
command; a KEY claimed by a run still in progress elsewhere exits 75 (or --skipped-exit). A
command that exits 0 completes KEY, any other end fails it, and the next run retries (attempt + 1).
When KEY cannot be marked done after the command exited 0 (the backend failed even after a retry on
a new connection), a warning names KEY and the exit status is 80: KEY stays running until
--claim-for has passed, then the work may run again. The status is 80 too when the claim was no
longer this run's at the end (reset, deleted, lost by the store, or expired and taken over): the
run was not recorded and the work may run again. A KEY that is empty or blank (only spaces or
invisible characters) is a configuration error (78); --claim-for without a key, and --once-key
followed by "--" or another option (an unquoted empty variable: write --once-key "$KEY"), are
command-line errors (64). A claim whose answer was lost is released (marked failed) on a new
connection, so it does not block KEY. TERM, INT or HUP arriving after the command exited wait until
the completion is recorded and the lock released (a warning says so); the status is the run's.
The command gets SHEDLOCK_LOCK_NAME and SHEDLOCK_FENCING_TOKEN in its environment, file descriptors
0-2 only, default signal dispositions, and neither SHEDLOCK_PROVIDER (it may hold a password) nor
the variable that the provider URI's password_env names.
Signals sent to shedlock (TERM, INT, HUP, QUIT, USR1, USR2) are passed to the command.
--wait 30s keeps trying while another holder has the lock (pauses of at most 100 ms, 20 ms after
the first second), then runs the command; see docs/crontab.md for the fairness bound. --wait 0s is
one attempt, as without it; an empty --wait, or a bare number such as 0, is a configuration error (78).
The lock is released when the command exits. A command that daemonizes (forks and exits, `setsid
... &`, `nohup ... &`, a service start script) releases the lock at once while its work goes on
unlocked: run the work in the foreground (e.g. `--no-daemon`, `--foreground`), or wrap it so it
waits for the work to end.

Examples:
  shedlock run --provider sqlite:/var/lib/locks.db --name nightly-report --at-most PT2H -- /usr/local/bin/report
  shedlock run --provider 'postgresql://app@db/ops' --name settle --at-most 10m --at-least 30s --skipped-exit 0 -- ./settle.sh
  shedlock run --provider 'postgresql://app@db/ops' --name import --at-most 10m --wait 5m -- ./import.sh
  shedlock run --provider redis://127.0.0.1:6379/0 --name sync --at-most 1m --keep-alive --timeout 3h -- rsync -a src/ dst/
  shedlock run --config /etc/shedlock.toml --task nightly-report)";

namespace {

std::vector<std::pair<std::string, std::string>> child_environment(const task_context& ctx) {
    std::vector<std::pair<std::string, std::string>> env{{"SHEDLOCK_LOCK_NAME", ctx.lock_name()}};
    if (auto token = ctx.fencing_token()) env.emplace_back("SHEDLOCK_FENCING_TOKEN", std::to_string(*token));
    if (const auto* claim = ctx.claim()) {
        env.emplace_back("SHEDLOCK_IDEMPOTENCY_KEY", claim->key);
        env.emplace_back("SHEDLOCK_CLAIM_ATTEMPT", std::to_string(claim->attempt));
    }
    return env;
}

std::optional<std::chrono::milliseconds> flag_duration(const std::string& text, const char* field) {
    if (text.empty()) return std::nullopt;
    return parse_duration(text, field);
}

/// --wait: zero is allowed (one attempt, as without it). Given but empty (`--wait "$UNSET"`) is
/// an error, not "no wait": with --config it would quietly drop the task's wait_for_lock. A bare
/// `0` is refused like every bare number (the duration parser's rule), with the spelling to use.
std::optional<std::chrono::milliseconds> parse_wait(const run_options& o) {
    if (o.wait_given && o.wait.empty())
        throw configuration_error("--wait is empty (an unset variable?); give how long to wait, e.g. --wait 30s, "
                                  "--wait 0s for one attempt, or leave --wait out");
    if (!o.wait.empty() && o.wait.find_first_not_of('0') == std::string::npos)
        throw configuration_error("--wait \"" + o.wait + "\" has no unit; write --wait 0s for one attempt "
                                  "(as without --wait) or how long to wait, e.g. --wait 30s");
    const auto wait = flag_duration(o.wait, "--wait");
    if (wait) validate_lock_wait("--wait \"" + o.wait + "\"", *wait);
    return wait;
}

std::optional<std::chrono::milliseconds> parse_timeout(const std::string& text) {
    const auto timeout = flag_duration(text, "--timeout");
    if (timeout && timeout->count() <= 0)
        throw configuration_error("--timeout \"" + text + "\" must be positive; give how long the command may run, e.g. 2h");
    return timeout;
}

/// The flags, parsed (configuration_error before any I/O). A given but empty --once-key (an
/// unset variable in a crontab) must not quietly mean "no key": the work would run again.
run_plan plan_from_flags(const run_options& o) {
    if (o.idempotency_key_given && o.idempotency_key.empty())
        throw configuration_error("--once-key is empty (an unset variable?); give the business key, e.g. "
                                  "--once-key settle:2024-06-01, or leave --once-key out to run without one");
    return run_plan{o.provider,
                    o.name,
                    flag_duration(o.at_most, "lock_at_most_for"),
                    flag_duration(o.minimum_hold, "lock_at_least_for"),
                    parse_timeout(o.timeout),
                    o.keep_alive,
                    o.command,
                    o.idempotency_key,
                    o.claim_for_given ? std::optional(parse_duration(o.claim_for, "--claim-for")) : std::nullopt,
                    parse_wait(o)};
}

void require(const run_plan& p, const run_options& o) {
    if (p.provider.empty()) throw missing_option("--provider (or SHEDLOCK_PROVIDER, or --config with [shedlock] provider)");
    if (p.name.empty()) throw missing_option("--name");
    if (!p.at_most) throw missing_option("--at-most (or lock_at_most_for in the config file)");
    if (p.command.empty()) throw missing_option("a command after -- (or command = [...] in the config file)");
    if (p.idempotency_key.empty() && o.claim_for_given)
        throw usage_error("--claim-for applies only with --once-key (or idempotency_key in the config file); "
                          "add the key or remove --claim-for");
}

/// A refusal that is the setup's (storage_failure_is_config, the rule of every subcommand: such
/// as a pooler refusing libpq's options under pooler=none) is no outage: it says "refused" and
/// exits 78, as other configuration problems do. Everything else, a refusal of category `other`
/// included, is --unavailable-exit.
int report_backend_failure(const std::string& what, std::optional<storage_category> category,
                           const std::string& message, const run_options& o) {
    if (storage_failure_is_config(category)) {
        log(log_level::error, what + " refused the statement: " + message);
        return exit_config;
    }
    log(log_level::error, what + " unavailable: " + message);
    return o.unavailable_exit;
}

/// Opens the backend; a failure to reach it is the caller's --unavailable-exit. A missing table
/// is a configuration problem (78, with the DDL) and escapes as storage_error(missing_schema).
std::optional<opened_provider> open_or_report(const run_plan& p, const run_options& o, int& exit_code) {
    try {
        return open_provider(p.provider);
    } catch (const storage_error& e) {
        if (e.category() == storage_category::missing_schema) throw;
        exit_code = report_backend_failure("lock backend", e.category(), e.what(), o);
        return std::nullopt;
    }
}

/// A stop signal that came after the command had exited waited for the completion and the
/// release (the key would stay running, the lock held): say so, the run's status stands.
void report_held_signal(int sig) {
    if (sig == 0) return;
    const char* name = sigabbrev_np(sig);
    log(log_level::warn, std::string("received SIG") + (name ? name : std::to_string(sig).c_str()) +
                             " after the command had exited; it was held until the completion was recorded and the "
                             "lock released");
}

}  // namespace

int run_command(const run_options& o) {
    run_plan p = plan_from_flags(o);
    if (!o.config.empty()) p = config_module().with_config(std::move(p), o);
    require(p, o);
    const lock_configuration config{p.name, *p.at_most, p.minimum_hold.value_or(std::chrono::milliseconds{0})};
    const auto& timeout = p.timeout;
    const auto claim_for = p.claim_for.value_or(*p.at_most);
    if (!p.idempotency_key.empty())
        validate_claim_key(p.idempotency_key, o.idempotency_key_given ? "--once-key" : o.config + ": idempotency_key");
    if (claim_for.count() <= 0)
        throw configuration_error("--claim-for " + format_duration(claim_for) + " must be positive, e.g. 2h");
    int open_failure = 0;
    auto opened = open_or_report(p, o, open_failure);
    if (!opened) return open_failure;
    std::shared_ptr<idempotency_store> claims;
    execute_options options;
    options.keep_alive = p.keep_alive;
    options.wait_for_lock = p.wait.value_or(std::chrono::milliseconds{0});
    if (!p.idempotency_key.empty()) {
        try {
            claims = opened->session->share_claims();  // the session's pool, shared with the locks
        } catch (const storage_error& e) {
            if (e.category() == storage_category::missing_schema) throw;
            return report_backend_failure("claims backend", e.category(), e.what(), o);
        }
        options.idempotency = idempotency_options{claims.get(), p.idempotency_key, claim_for};
    }
    locking_task_executor executor(*opened->provider);
    child_exit child;
    bool child_ran = false;
    auto body = [&](task_context& ctx) {
        wait_policy policy;
        if (timeout) policy.deadline = std::chrono::steady_clock::now() + *timeout;
        policy.stop_requested = [&ctx] { return ctx.lock_lost(); };
        policy.take_terminal = true;
        policy.hold_signals_after_exit = true;
        child_ran = true;
        child = run_child({p.command, child_environment(ctx), opened->secret_env}, policy);
        if (!ctx.claim()) return;
        // Only a clean exit completes the key; anything else fails it, so the next run retries.
        if (child.exec_failed || child.timed_out || child.status != 0)
            throw std::runtime_error("command did not succeed (exit status " + std::to_string(child.status) + ")");
        ctx.set_result("exit status 0");
    };
    const auto result = executor.execute(body, config, options);
    if (child_ran) report_held_signal(end_held_signals());
    switch (result.outcome) {
        case run_outcome::skipped_locked:
            log(log_level::info, result.message + "; command not run");
            return o.skipped_exit;
        case run_outcome::skipped_done:
            log(log_level::info, result.message + "; command not run");
            return o.done_exit;
        case run_outcome::lock_error:
            return report_backend_failure("lock backend " + opened->display, result.error_category, result.message, o);
        default: break;
    }
    if (result.unlock_failed)
        log(log_level::warn, "releasing lock \"" + p.name + "\" failed; it stays held until its lock_until (at most " +
                                 format_duration(config.lock_at_most_for()) + " after the start): " + result.unlock_problem);
    if (result.lock_lost) log(log_level::warn, "lock \"" + p.name + "\" was lost while the command ran; it was stopped");
    if (result.claim_lost || result.claim_unrecorded) log(log_level::warn, result.claim_problem);
    if (child.exec_failed) {
        log(log_level::error, child.error);
        return exit_exec_failed;
    }
    if (child.timed_out) {
        log(log_level::warn, "command ran past its timeout " + format_duration(*timeout) + " and was stopped");
        return exit_timeout;
    }
    // Work done but not recorded: cron must not read it as a clean success (it may run again).
    if ((result.claim_unrecorded || result.claim_lost) && child.status == 0) return exit_unrecorded;
    return child.status;
}

}  // namespace shedlock::cli
