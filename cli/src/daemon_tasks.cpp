#include "daemon_tasks.hpp"

#include "child_process.hpp"
#include "output.hpp"

#include <shedlock/config_tasks.hpp>
#include <shedlock/error.hpp>

#include <stdexcept>

namespace shedlock::cli {
namespace {

void replace_all(std::string& text, const std::string& key, const std::string& value) {
    for (auto pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + value.size()))
        text.replace(pos, key.size(), value);
}

/// Only our placeholders are touched: a command's own braces (awk '{print $1}') pass through.
std::string render_argument(std::string arg, const task_definition& task, const std::string& env, const task_context& ctx) {
    for (const char* key : {"{date}", "{datetime}", "{env}"})
        if (arg.find(key) != std::string::npos) replace_all(arg, key, render_template(key, task.schedule, ctx.scheduled_at(), env));
    replace_all(arg, "{task}", task.name);
    replace_all(arg, "{lock_name}", ctx.lock_name());
    replace_all(arg, "{fencing_token}", ctx.fencing_token() ? std::to_string(*ctx.fencing_token()) : "");
    return arg;
}

std::vector<std::pair<std::string, std::string>> command_environment(const task_config& c, const task_context& ctx) {
    std::vector<std::pair<std::string, std::string>> env(c.env.begin(), c.env.end());
    env.emplace_back("SHEDLOCK_TASK", c.name);
    env.emplace_back("SHEDLOCK_LOCK_NAME", ctx.lock_name());
    env.emplace_back("SHEDLOCK_SCHEDULED_AT", iso_time(ctx.scheduled_at()));
    if (auto token = ctx.fencing_token()) env.emplace_back("SHEDLOCK_FENCING_TOKEN", std::to_string(*token));
    if (const auto* claim = ctx.claim()) {
        env.emplace_back("SHEDLOCK_IDEMPOTENCY_KEY", claim->key);
        env.emplace_back("SHEDLOCK_CLAIM_ATTEMPT", std::to_string(claim->attempt));
    }
    return env;
}

/// Why the daemon itself stopped the command, as a suffix of the run record's message, or "".
std::string stop_reason(const task_context& ctx) {
    if (ctx.lock_lost()) return " (the daemon stopped it: lock lost, keep-alive extension failed)";
    if (ctx.cancellation_requested()) return " (the daemon stopped it: daemon shutting down)";
    return "";
}

void run_command(const task_config& c, const task_definition& task, const std::string& env,
                 const std::vector<std::string>& secret_env, task_context& ctx) {
    std::vector<std::string> argv;
    for (const auto& arg : c.command) argv.push_back(render_argument(arg, task, env, ctx));
    wait_policy policy;
    policy.forward_signals = false;
    policy.stop_requested = [&ctx] { return ctx.cancellation_requested(); };
    if (c.timeout) policy.deadline = std::chrono::steady_clock::now() + *c.timeout;
    const child_exit result = run_child({argv, command_environment(c, ctx), secret_env}, policy);
    ctx.count("exit_status", result.status);
    if (result.exec_failed) throw std::runtime_error(result.error);
    if (result.timed_out) throw std::runtime_error("command stopped after timeout " + human_duration(*c.timeout));
    if (result.signalled) throw std::runtime_error("command killed by signal " + std::to_string(result.status - 128) +
                                                   stop_reason(ctx));
    if (result.status != 0) throw std::runtime_error("command exited with status " + std::to_string(result.status));
}

}  // namespace

std::vector<task_definition> daemon_tasks(const shedlock_config& config, const std::vector<std::string>& secret_env) {
    std::vector<task_definition> tasks;
    for (const auto& [name, c] : config.tasks) {
        if (c.command.empty())
            throw configuration_error(config.file + ":" + std::to_string(c.line) + ": [tasks." + name +
                                      "] has no command; the daemon runs commands, e.g. command = [\"/usr/local/bin/job\"]");
        task_definition task = task_from_config(c, config);
        try {
            (void)upcoming_firings(task.schedule, system_clock::instance().now(), 1);  // bad cron or zone: fail here
        } catch (const configuration_error& e) {
            throw configuration_error(config.file + ":" + std::to_string(c.line) + ": [tasks." + name + "] " + e.what());
        }
        const std::string env = config.env;
        task.body = [c, task_copy = task, env, secret_env](task_context& ctx) {
            run_command(c, task_copy, env, secret_env, ctx);
        };
        tasks.push_back(std::move(task));
    }
    return tasks;
}

}  // namespace shedlock::cli
