// shedlock daemon: a distributed cron. Runs the config file's commands with the scheduler; each
// firing runs on one instance of the cluster.
#include "daemon_command.hpp"

#include "daemon_http.hpp"
#include "daemon_tasks.hpp"
#include "exit_codes.hpp"
#include "log.hpp"
#include "output.hpp"
#include "provider_factory.hpp"

#include <shedlock/config_tasks.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/uri_password.hpp>

#include <signal.h>
#include <string.h>

#include <iostream>

namespace shedlock::cli {
namespace {

/// A duration for display; "(none)" when unset.
std::string shown(const std::optional<std::chrono::milliseconds>& d) { return d ? format_duration(*d) : "(none)"; }

int dry_run(const std::vector<task_definition>& tasks, const shedlock_config& config, std::size_t count) {
    // The live daemon's checks first (reserved heartbeat names, rendered templates, durations):
    // a configuration the daemon refuses is not previewed as if it would run.
    check_tasks(tasks, scheduler_options_from(config));
    const timestamp now = system_clock::instance().now();
    for (const auto& t : tasks) {
        std::cout << t.name << ": " << t.schedule.describe() << ", lock_at_most_for "
                  << shown(t.lock_at_most_for ? t.lock_at_most_for : config.default_lock_at_most_for)
                  << ", lock_at_least_for " << format_duration(t.lock_at_least_for.value_or(std::chrono::milliseconds{0}))
                  << (t.enabled ? "" : " [disabled]") << "\n";
        for (timestamp at : upcoming_firings(t.schedule, now, count)) {
            const std::string lock = render_template(t.lock_name.empty() ? t.name : t.lock_name, t.schedule, at, config.env);
            std::cout << "  " << iso_time(at) << "  lock " << lock << "\n";
        }
    }
    return exit_ok;
}

/// Blocks the stop signals in every thread (the scheduler's threads inherit the mask), so that
/// only the main thread's sigwait sees them.
sigset_t block_stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    return set;
}

}  // namespace

int daemon_command(const daemon_options& o) {
    const auto grace = parse_duration(o.grace, "--grace");
    const shedlock_config config = load_config(o.config);
    if (o.dry_run) return dry_run(daemon_tasks(config, {}), config, o.count);
    const std::string uri = o.provider.empty() ? config.provider : o.provider;
    if (uri.empty()) throw configuration_error(o.config + ": [shedlock] provider is missing; add provider = \"sqlite:/var/lib/app/locks.db\"");
    // The tasks before the provider: a task's configuration error is reported without connecting.
    const auto tasks = daemon_tasks(config, secret_environment_variables(parse_provider_uri(uri)));
    const sigset_t stop_signals = block_stop_signals();
    // One session: the locks, the run records and the claims share its one pool.
    open_options how{.create_store_schema = true};
    how.retention.max_per_task = config.run_retention;
    auto locks = open_provider(uri, how);
    auto runs = locks.session->share_runs();
    metrics_registry metrics;
    auto options = scheduler_options_from(config);
    std::shared_ptr<idempotency_store> claims;  // only when a task has an idempotency_key
    for (const auto& t : tasks)
        if (!t.idempotency_key.empty() && !claims) claims = locks.session->share_claims();
    options.claims = claims.get();
    options.warn = [](const std::string& message) { log(log_level::warn, message); };
    options.metrics = &metrics;
    options.provider_name = parse_provider_uri(uri).scheme;
    scheduler daemon(*locks.provider, *runs, options);
    for (const auto& t : tasks) daemon.add(t);
    daemon.start();
    log(log_level::info, "daemon started: " + std::to_string(tasks.size()) + " task(s) on " + locks.display);
    const auto http = o.http.empty() ? nullptr : start_daemon_http(daemon, metrics, o.http, locks.display, config.heartbeat);
    int sig = 0;
    ::sigwait(&stop_signals, &sig);
    log(log_level::info, std::string("signal ") + ::strsignal(sig) + ": stopping (grace " + o.grace + ")");
    daemon.stop(grace);
    log(log_level::info, "daemon stopped");
    return exit_ok;
}

}  // namespace shedlock::cli
