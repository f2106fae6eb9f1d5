// shedlock run: run a command only when the cluster-wide lock was acquired.
#include "child_process.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "provider_factory.hpp"

#include <shedlock/config.hpp>
#include <shedlock/error.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/trigger.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/provider_registry.hpp>

#include <CLI/CLI.hpp>

#include <stdexcept>

namespace shedlock::cli {
namespace {

struct run_options {
    std::string provider;
    std::string name;
    std::string at_most;   ///< flags as given; empty: not given
    std::string at_least;
    bool keep_alive = false;
    std::string timeout;
    int skipped_exit = exit_locked;
    int unavailable_exit = exit_unavailable;
    std::vector<std::string> command;
    std::string config;
    std::string task;
    std::string once_key;   ///< idempotency key; empty: none (or the config file's idempotency_key)
    std::string claim_for;  ///< empty: --at-most
    int done_exit = exit_done;
};

const char* const run_footer = R"(
Exit status: the command's own status when it ran (128+N when killed by signal N);
  75 (or --skipped-exit) when another holder had the lock and the command did not run;
  69 (or --unavailable-exit) when the lock backend could not be reached;
  124 when --timeout stopped the command; 71 when the command could not be started;
  78 for a bad configuration (duration, URI, name, a missing lock table); 64 for a bad command line.
With --once-key KEY the command runs at most once successfully per KEY (docs/idempotency.md): after
the lock, KEY is claimed; a KEY completed before exits 79 (or --done-exit) without running the
command; a KEY claimed by a run still in progress elsewhere exits 75 (or --skipped-exit). A
command that exits 0 completes KEY, any other end fails it, and the next run retries (attempt + 1).
The command gets SHEDLOCK_LOCK_NAME and SHEDLOCK_FENCING_TOKEN in its environment, file descriptors
0-2 only, default signal dispositions, and neither SHEDLOCK_PROVIDER (it may hold a password) nor
the variable that the provider URI's password_env names.
Signals sent to shedlock (TERM, INT, HUP, QUIT, USR1, USR2) are passed to the command.
The lock is released when the command exits. A command that daemonizes (forks and exits, `setsid
... &`, `nohup ... &`, a service start script) releases the lock at once while its work goes on
unlocked: run the work in the foreground (e.g. `--no-daemon`, `--foreground`), or wrap it so it
waits for the work to end.

Examples:
  shedlock run --provider sqlite:/var/lib/locks.db --name nightly-report --at-most PT2H -- /usr/local/bin/report
  shedlock run --provider 'postgresql://app@db/ops' --name settle --at-most 10m --at-least 30s --skipped-exit 0 -- ./settle.sh
  shedlock run --provider redis://127.0.0.1:6379/0 --name sync --at-most 1m --keep-alive --timeout 3h -- rsync -a src/ dst/
  shedlock run --config /etc/shedlock.toml --task nightly-report)";

std::vector<std::pair<std::string, std::string>> child_environment(const task_context& ctx) {
    std::vector<std::pair<std::string, std::string>> env{{"SHEDLOCK_LOCK_NAME", ctx.lock_name()}};
    if (auto token = ctx.fencing_token()) env.emplace_back("SHEDLOCK_FENCING_TOKEN", std::to_string(*token));
    if (const auto* claim = ctx.claim()) {
        env.emplace_back("SHEDLOCK_IDEMPOTENCY_KEY", claim->key);
        env.emplace_back("SHEDLOCK_CLAIM_ATTEMPT", std::to_string(claim->attempt));
    }
    return env;
}

/// What to run, with every duration parsed: the flags first, then the config file.
struct run_plan {
    std::string provider;
    std::string name;
    std::optional<std::chrono::milliseconds> at_most;
    std::optional<std::chrono::milliseconds> at_least;
    std::optional<std::chrono::milliseconds> timeout;
    bool keep_alive = false;
    std::vector<std::string> command;
    std::string once_key;
};

std::optional<std::chrono::milliseconds> flag_duration(const std::string& text, const char* field) {
    if (text.empty()) return std::nullopt;
    return parse_duration(text, field);
}

std::optional<std::chrono::milliseconds> parse_timeout(const std::string& text) {
    const auto timeout = flag_duration(text, "--timeout");
    if (timeout && timeout->count() <= 0)
        throw configuration_error("--timeout \"" + text + "\" must be positive; give how long the command may run, e.g. 2h");
    return timeout;
}

/// The flags, parsed (configuration_error before any I/O).
run_plan plan_from_flags(const run_options& o) {
    return run_plan{o.provider,
                    o.name,
                    flag_duration(o.at_most, "lock_at_most_for"),
                    flag_duration(o.at_least, "lock_at_least_for"),
                    parse_timeout(o.timeout),
                    o.keep_alive,
                    o.command,
                    o.once_key};
}

/// Fills what the flags left open from `[shedlock]` and `[tasks.<task>]` of the config file.
run_plan with_config(run_plan plan, const run_options& o) {
    const shedlock_config file = load_config(o.config);
    const std::string task_name = o.task.empty() ? o.name : o.task;
    if (task_name.empty()) throw configuration_error("--config needs --task NAME (a [tasks.NAME] table of " + o.config + ")");
    const task_config& t = file.task(task_name);
    if (plan.provider.empty()) plan.provider = file.provider;
    const trigger zone_source = t.cron ? cron(*t.cron, t.zone.value_or("")) : fixed_rate(std::chrono::seconds{1});
    if (plan.name.empty() || !o.task.empty())
        plan.name = render_template(t.lock_name.value_or(task_name), zone_source, system_clock::instance().now(), file.env);
    if (!plan.at_most) plan.at_most = t.lock_at_most_for ? t.lock_at_most_for : file.default_lock_at_most_for;
    if (!plan.at_least) plan.at_least = t.lock_at_least_for ? t.lock_at_least_for : file.default_lock_at_least_for;
    if (t.keep_alive) plan.keep_alive = plan.keep_alive || *t.keep_alive;
    if (!plan.timeout) plan.timeout = t.timeout;
    if (plan.command.empty()) plan.command = t.command;
    if (plan.once_key.empty() && t.idempotency_key)
        plan.once_key = render_template(*t.idempotency_key, zone_source, system_clock::instance().now(), file.env);
    return plan;
}

void require(const run_plan& p) {
    if (p.provider.empty()) throw CLI::RequiredError("--provider (or SHEDLOCK_PROVIDER, or --config with [shedlock] provider)");
    if (p.name.empty()) throw CLI::RequiredError("--name");
    if (!p.at_most) throw CLI::RequiredError("--at-most (or lock_at_most_for in the config file)");
    if (p.command.empty()) throw CLI::RequiredError("a command after -- (or command = [...] in the config file)");
}

/// Opens the backend; a failure to reach it is the caller's --unavailable-exit. A missing table
/// is a configuration problem (78, with the DDL) and escapes as storage_error(missing_schema).
std::optional<opened_provider> open_or_report(const run_plan& p) {
    try {
        return open_provider(p.provider);
    } catch (const storage_error& e) {
        if (e.category() == storage_category::missing_schema) throw;
        log(log_level::error, std::string("lock backend unavailable: ") + e.what());
        return std::nullopt;
    }
}

int run(const run_options& o) {
    run_plan p = plan_from_flags(o);
    if (!o.config.empty()) p = with_config(std::move(p), o);
    require(p);
    const lock_configuration config{p.name, *p.at_most, p.at_least.value_or(std::chrono::milliseconds{0})};
    const auto& timeout = p.timeout;
    const auto claim_for = flag_duration(o.claim_for, "--claim-for").value_or(*p.at_most);
    if (!p.once_key.empty()) validate_claim_key(p.once_key, "--once-key");
    if (claim_for.count() <= 0)
        throw configuration_error("--claim-for \"" + o.claim_for + "\" must be positive, e.g. 2h");
    auto opened = open_or_report(p);
    if (!opened) return o.unavailable_exit;
    std::unique_ptr<idempotency_store> claims;
    execute_options options;
    options.keep_alive = p.keep_alive;
    if (!p.once_key.empty()) {
        try {
            claims = open_idempotency_store(p.provider, {}, registry());
        } catch (const storage_error& e) {
            if (e.category() == storage_category::missing_schema) throw;
            log(log_level::error, std::string("claims backend unavailable: ") + e.what());
            return o.unavailable_exit;
        }
        options.idempotency = idempotency_options{claims.get(), p.once_key, claim_for};
    }
    locking_task_executor executor(*opened->provider);
    child_exit child;
    auto body = [&](task_context& ctx) {
        wait_policy policy;
        if (timeout) policy.deadline = std::chrono::steady_clock::now() + *timeout;
        policy.stop_requested = [&ctx] { return ctx.lock_lost(); };
        policy.take_terminal = true;
        child = run_child({p.command, child_environment(ctx), opened->secret_env}, policy);
        if (!ctx.claim()) return;
        // Only a clean exit completes the key; anything else fails it, so the next run retries.
        if (child.exec_failed || child.timed_out || child.status != 0)
            throw std::runtime_error("command did not succeed (exit status " + std::to_string(child.status) + ")");
        ctx.set_result("exit status 0");
    };
    const auto result = executor.execute(body, config, options);
    switch (result.outcome) {
        case run_outcome::skipped_locked:
            log(log_level::info, result.message + "; command not run");
            return o.skipped_exit;
        case run_outcome::skipped_done:
            log(log_level::info, result.message + "; command not run");
            return o.done_exit;
        case run_outcome::lock_error:
            log(log_level::error, "lock backend " + opened->display + " unavailable: " + result.message);
            return o.unavailable_exit;
        default: break;
    }
    if (result.unlock_failed)
        log(log_level::warn, "releasing lock \"" + p.name + "\" failed; it stays held until its lock_until (at most " +
                                 format_duration(config.lock_at_most_for()) + " after the start): " + result.message);
    if (result.lock_lost) log(log_level::warn, "lock \"" + p.name + "\" was lost while the command ran; it was stopped");
    if (result.claim_lost) log(log_level::warn, result.message);
    if (child.exec_failed) {
        log(log_level::error, child.error);
        return exit_exec_failed;
    }
    if (child.timed_out) {
        log(log_level::warn, "command ran past its timeout " + format_duration(*timeout) + " and was stopped");
        return exit_timeout;
    }
    return child.status;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<run_options>();
    auto* cmd = app.add_subcommand("run", "Run a command only if the named lock was acquired (crontab wrapper)");
    cmd->add_option("--provider,-p", o->provider, "Lock backend URI (sqlite:FILE, postgresql://..., mysql://..., redis://...)")
        ->envname("SHEDLOCK_PROVIDER");
    cmd->add_option("--name,-n", o->name, "Lock name, 1-64 characters");
    cmd->add_option("--at-most", o->at_most, "lock_at_most_for: longest hold, e.g. PT10M or 10m");
    cmd->add_option("--at-least", o->at_least, "lock_at_least_for: shortest hold, e.g. PT30S (default: none)");
    cmd->add_flag("--keep-alive", o->keep_alive, "Extend the lock every at-most/2 while the command runs");
    cmd->add_option("--timeout", o->timeout, "Stop the command after this long (SIGTERM, then SIGKILL after 10s); positive, at most 100 years");
    cmd->add_option("--skipped-exit", o->skipped_exit, "Exit status when the lock was held elsewhere (0-255, default 75)")
        ->check(CLI::Range(0, 255));
    cmd->add_option("--unavailable-exit", o->unavailable_exit, "Exit status when the backend was unreachable (0-255, default 69)")
        ->check(CLI::Range(0, 255));
    cmd->add_option("--once-key", o->once_key, "Idempotency key: run the command at most once successfully per key, e.g. settle:2024-06-01");
    cmd->add_option("--claim-for", o->claim_for, "With --once-key: how long a claim holds before another run may take it over (default: --at-most)");
    cmd->add_option("--done-exit", o->done_exit, "Exit status when --once-key was already done (0-255, default 79)")
        ->check(CLI::Range(0, 255));
    cmd->add_option("--config,-c", o->config, "Take provider, lock policy and command from this TOML file");
    cmd->add_option("--task,-t", o->task, "With --config: the [tasks.<task>] table to use (default: --name)");
    cmd->add_option("command", o->command, "The command and its arguments, after --");
    cmd->footer(run_footer);
    cmd->callback([o, &exit_status] { exit_status = run(*o); });
}

}  // namespace shedlock::cli
