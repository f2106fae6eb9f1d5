// shedlock: cluster-wide locks for crontab lines, lock inspection, schemas, checks, benchmarks.
// The command line of every subcommand is here (commands.hpp); what a command does is in its
// <name>_command.cpp.
#include "bench_command.hpp"
#include "claims_command.hpp"
#include "commands.hpp"
#include "config_module.hpp"
#include "daemon_command.hpp"
#include "doctor_command.hpp"
#include "exit_codes.hpp"
#include "locks_command.hpp"
#include "log.hpp"
#include "run_command.hpp"
#include "runs_command.hpp"
#include "schema_command.hpp"
#include "usage_error.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::cli {

void add_run_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<run_options>();
    auto* cmd = app.add_subcommand("run", "Run a command only if the named lock was acquired (crontab wrapper)");
    cmd->add_option("--provider,-p", o->provider, "Lock backend URI (sqlite:FILE, postgresql://..., mysql://..., redis://...)")
        ->envname("SHEDLOCK_PROVIDER");
    cmd->add_option("--name,-n", o->name, "Lock name, 1-64 characters");
    cmd->add_option("--at-most", o->at_most, "lock_at_most_for: longest hold, e.g. PT10M or 10m");
    cmd->add_option("--at-least", o->minimum_hold, "lock_at_least_for: shortest hold, e.g. PT30S (default: none)");
    cmd->add_flag("--keep-alive", o->keep_alive, "Extend the lock every at-most/2 while the command runs");
    cmd->add_option("--timeout", o->timeout, "Stop the command after this long (SIGTERM, then SIGKILL after 10s); positive, at most 100 years");
    auto* wait = cmd->add_option("--wait", o->wait, "Wait up to this long for a lock held elsewhere, e.g. 30s; 0s or more, at most 10 years (default: no wait; like flock -w)");
    cmd->add_option("--skipped-exit", o->skipped_exit, "Exit status when the lock was held elsewhere (0-255, default 75)")
        ->check(CLI::Range(0, 255));
    cmd->add_option("--unavailable-exit", o->unavailable_exit, "Exit status when the backend was unreachable (0-255, default 69)")
        ->check(CLI::Range(0, 255));
    auto* key_option = cmd->add_option("--once-key", o->idempotency_key,
                                       "Idempotency key: run the command at most once successfully per key, e.g. settle:2024-06-01");
    auto* claim_for = cmd->add_option("--claim-for", o->claim_for,
                                      "With --once-key: how long a claim holds before another run may take it over (default: --at-most)");
    cmd->add_option("--done-exit", o->done_exit, "Exit status when --once-key was already done (0-255, default 79)")
        ->check(CLI::Range(0, 255));
    cmd->add_option("--config,-c", o->config, "Take provider, lock policy and command from this TOML file");
    cmd->add_option("--task,-t", o->task, "With --config: the [tasks.<task>] table to use (default: --name)");
    cmd->add_option("command", o->command, "The command and its arguments, after --");
    cmd->footer(run_footer);
    cmd->callback([o, key_option, claim_for, wait, &exit_status] {
        // Given but empty (`--once-key "$UNSET"`, `--wait "$UNSET"`) is an error, not "none".
        o->idempotency_key_given = key_option->count() > 0;
        o->wait_given = wait->count() > 0;
        o->claim_for_given = claim_for->count() > 0;
        exit_status = run_command(*o);
    });
}

void add_locks_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<locks_options>();
    auto* cmd = app.add_subcommand("locks", "List lock records: holder, since when, until when, fencing token");
    cmd->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER");
    cmd->add_flag("--json", o->json, "JSON for scripts");
    cmd->add_option("--stuck-after", o->stuck_after, "Flag locks held longer or further ahead than this (default PT6H)");
    cmd->footer("\nExamples:\n  shedlock locks -p sqlite:/var/lib/locks.db\n  shedlock locks -p 'postgresql://ops@db/app' --json\n"
                "  shedlock locks release nightly-report -p sqlite:/var/lib/locks.db --force");
    cmd->callback([o, &exit_status] {
        if (o->release_name.empty()) exit_status = locks_command(*o);
    });
    auto* rel = cmd->add_subcommand("release", "Release a lock whoever holds it (operator action)");
    rel->add_option("name", o->release_name, "Lock name")->required();
    rel->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER");
    rel->add_flag("--force", o->force, "Required: you accept that the task may run twice");
    rel->add_flag("--yes,-y", o->yes, "Do not ask for confirmation");
    rel->callback([o, &exit_status] { exit_status = locks_release_command(*o); });
}

void add_schema_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<schema_options>();
    auto* cmd = app.add_subcommand("schema", "Print or apply the lock table's DDL");
    cmd->require_subcommand(1);
    cmd->footer("\nExamples:\n  shedlock schema print -p 'postgresql://db/app?table=ops.shedlock' > V1__shedlock.sql\n"
                "  shedlock schema apply -p sqlite:/var/lib/locks.db");
    auto* print_cmd = cmd->add_subcommand("print", "Print the DDL of the lock, run-record and claims tables (for Flyway/Liquibase); connects to nothing");
    print_cmd->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER")->required();
    print_cmd->callback([o, &exit_status] { exit_status = schema_print_command(*o); });
    auto* apply_cmd = cmd->add_subcommand("apply", "Create the lock, run-record and claims tables if they do not exist");
    apply_cmd->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER")->required();
    apply_cmd->callback([o, &exit_status] { exit_status = schema_apply_command(*o); });
}

void add_doctor_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<doctor_options>();
    auto* cmd = app.add_subcommand("doctor", "Check connectivity, table, permissions and clock offset of a backend");
    cmd->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER")->required();
    cmd->add_option("--max-offset", o->max_offset, "Warn when this host's clock is off by more (default 1s)");
    cmd->add_flag("--json", o->json, "JSON for scripts: [{\"level\": \"ok|warn|FAIL\", \"check\": \"...\"}]");
    cmd->footer("\nExamples:\n  shedlock doctor -p 'postgresql://app@db:5432/ops'\n  shedlock doctor -p sqlite:/var/lib/locks.db");
    cmd->callback([o, &exit_status] { exit_status = doctor_command(*o); });
}

void add_runs_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<runs_options>();
    auto* cmd = app.add_subcommand("runs", "Show run records of scheduled tasks, newest first");
    cmd->add_option("--provider,-p", o->provider, "Lock backend URI (its run-record store is read)")->envname("SHEDLOCK_PROVIDER");
    cmd->add_option("--config,-c", o->config, "Take the provider from this config file");
    cmd->add_option("--task,-t", o->task, "Only this task");
    cmd->add_option("--limit,-n", o->limit, "At most this many records (default 20)")->check(CLI::Range(1, 100000));
    cmd->add_flag("--json", o->json, "JSON for scripts");
    cmd->footer("\nExamples:\n  shedlock runs -p sqlite:/var/lib/app/locks.db\n  shedlock runs -c /etc/shedlock.toml --task nightly-report -n 5 --json");
    cmd->callback([o, &exit_status] { exit_status = runs_command(*o); });
}

void add_daemon_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<daemon_options>();
    auto* cmd = app.add_subcommand("daemon", "Run the config file's tasks (commands): a distributed cron");
    cmd->add_option("--config,-c", o->config, "TOML config file with [shedlock] and [tasks.<name>] tables")->required();
    cmd->add_option("--provider,-p", o->provider, "Override [shedlock] provider");
    cmd->add_flag("--dry-run", o->dry_run, "Print each task's next fire times and lock names, run nothing");
    cmd->add_option("--count", o->count, "Fire times per task for --dry-run (default 5)");
    cmd->add_option("--grace", o->grace, "On SIGTERM/SIGINT: how long running commands get (default PT30S)");
    cmd->add_option("--http", o->http, "Serve /metrics, /healthz, /api/* and a status page on host:port "
                                       "(e.g. 127.0.0.1:9464; bearer token from $SHEDLOCK_HTTP_TOKEN)");
    cmd->footer("\nEvery host runs the same daemon with the same file; each firing runs once in the cluster.\n"
                "SIGTERM/SIGINT: no new firings, running commands get SIGTERM and --grace, locks are released.\n"
                "Examples:\n  shedlock daemon -c /etc/shedlock.toml --dry-run\n  shedlock daemon -c /etc/shedlock.toml");
    cmd->callback([o, &exit_status] { exit_status = config_module().daemon(*o, current_log_level()); });
}

void add_claims_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<claims_options>();
    auto* cmd = app.add_subcommand("claims", "Show idempotency keys (claims) of a backend, or reset one");
    cmd->add_option("--provider,-p", o->provider, "Backend URI (its claims table or keys are read)")->envname("SHEDLOCK_PROVIDER");
    cmd->add_option("--config,-c", o->config, "Take the provider from this TOML file");
    cmd->add_flag("--json", o->json, "One JSON array instead of a table");
    cmd->footer("\nExit status: 0; reset: 1 when the key had no record, 64 without --force.\n"
                "Examples:\n  shedlock claims -p 'postgresql://app@db/ops'\n"
                "  shedlock claims reset 'settle:20240601' --force -p sqlite:/var/lib/locks.db");
    auto* reset = cmd->add_subcommand("reset", "Delete one key's record so that its work can run again");
    reset->add_option("key", o->key, "The idempotency key")->required();
    reset->add_flag("--force", o->force, "Really reset (the work of the key may run again)");
    reset->fallthrough();
    cmd->callback([o, reset, &exit_status] {
        exit_status = reset->parsed() ? reset_claim_command(*o) : list_claims_command(*o);
    });
}

void add_bench_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<bench_options>();
    auto* cmd = app.add_subcommand("bench", "Compare providers: cycles/s, latency, contention, fairness");
    cmd->add_option("--provider,-p", o->providers, "Lock backend URI; repeat to compare several")->required();
    cmd->add_option("--duration", o->duration, "Length of each of the three phases (default 2s)");
    cmd->add_option("--contenders", o->contenders, "Threads, each with its own connection (default 4)")
        ->check(CLI::Range(1, 64));
    cmd->add_flag("--json", o->json, "JSON for scripts");
    cmd->add_option("--svg", o->svg, "Also write a bar chart to this SVG file");
    cmd->footer("\nLock names use a temporary prefix; every record the run created is deleted at the end.\n"
                "Example:\n  shedlock bench -p sqlite:/tmp/b.db?create_schema=true -p 'postgresql://app@db/ops' --svg bench.svg");
    cmd->callback([o, &exit_status] { exit_status = bench_command(*o); });
}

/// The arguments with every `--option=` (nothing after '=') before `--` split into `--option`
/// and an empty argument. CLI11 reads `--option=` like `--option` and takes the NEXT argument as
/// the value: `--once-key= -- cmd` made "--" the key. An empty value must stay empty (and be
/// refused where a value is required).
std::vector<std::string> with_explicit_empty_values(int argc, char** argv) {
    std::vector<std::string> args;
    bool options = true;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") options = false;
        const bool empty_value = options && a.size() > 3 && a.rfind("--", 0) == 0 && a.back() == '=' &&
                                 a.find('=') == a.size() - 1;
        args.push_back(empty_value ? a.substr(0, a.size() - 1) : a);
        if (empty_value) args.emplace_back();
    }
    return args;
}

/// The option called `name` ("--once-key", "-n") of `cmd` or a command enclosing it.
const CLI::Option* known_option(const CLI::App* cmd, const std::string& name) {
    for (; cmd != nullptr; cmd = cmd->get_parent())
        if (const auto* opt = cmd->get_option_no_throw(name)) return opt;
    return nullptr;
}

const CLI::App* subcommand_named(const CLI::App& cmd, const std::string& name) {
    const auto found = cmd.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == name; });
    return found.empty() ? nullptr : found.front();
}

/// Refuses `--option ""` (an unset variable, quoted): CLI11 stores an empty value as if the
/// option had not been given, so `--timeout "$T"` with T unset silently meant "no timeout". The
/// options whose commands refuse an empty value with advice of their own are left to them.
void refuse_empty_value(const CLI::Option& opt, const std::string& arg, const std::string& value) {
    if (!value.empty()) return;
    for (const char* own_check : {"--once-key", "--wait", "--claim-for"})
        if (opt.check_name(own_check)) return;
    throw shedlock::configuration_error(arg + " is empty (an unset variable?); give it a value, or leave " + arg +
                                        " out for its default");
}

/// Refuses `--option VALUE` where VALUE is `--` or another option, and a --once-key VALUE that
/// starts with '-'. CLI11 takes whatever follows as the value: `--once-key $KEY -- cmd` with KEY
/// unset made "--" the key, and the command's own arguments were read as shedlock's (`sh -c`
/// as --config). `--option=VALUE` stays the way to give a value that starts with '-'.
void refuse_options_as_values(const CLI::App& app, const std::vector<std::string>& args) {
    const CLI::App* cmd = &app;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--") return;
        if (arg.empty() || arg[0] != '-') {
            if (const auto* sub = subcommand_named(*cmd, arg)) cmd = sub;
            continue;
        }
        const auto* opt = known_option(cmd, arg);  // `--x=v` is no option's name: nothing follows it
        if (opt == nullptr || opt->get_expected_min() == 0 || i + 1 >= args.size()) continue;  // 0: a flag
        const std::string& value = args[++i];
        refuse_empty_value(*opt, arg, value);
        const bool an_option = value == "--" || value.rfind("--", 0) == 0 || known_option(cmd, value) != nullptr;
        const bool dashed_key = opt->check_name("--once-key") && !value.empty() && value[0] == '-';
        if (an_option || dashed_key)
            throw usage_error(arg + " is followed by \"" + shedlock::printable_text(value, 80) + "\", " +
                              (an_option ? "an option, " : "") + "not a value: an unquoted variable that is empty "
                              "vanishes from the command line; quote it (" + arg + " \"$KEY\"), or write " + arg +
                              "=VALUE for a value that really starts with '-'");
    }
}

}  // namespace shedlock::cli

int main(int argc, char** argv) {
    using namespace shedlock::cli;
    CLI::App app{"shedlock: distributed locks for scheduled tasks"};
    app.set_version_flag("--version", std::string("shedlock ") + SHEDLOCK_VERSION);
    app.require_subcommand(1);
    std::string level = "info";
    app.add_option("--log-level", level, "debug, info, warn, error or off (logs go to stderr)");
    int exit_status = exit_ok;
    add_run_command(app, exit_status);
    add_locks_command(app, exit_status);
    add_schema_command(app, exit_status);
    add_doctor_command(app, exit_status);
    add_runs_command(app, exit_status);
    add_daemon_command(app, exit_status);
    add_claims_command(app, exit_status);
    add_bench_command(app, exit_status);
    app.parse_complete_callback([&] { set_log_level(parse_log_level(level)); });
    try {
        auto args = with_explicit_empty_values(argc, argv);
        refuse_options_as_values(app, args);
        std::vector<char*> arg_pointers;
        for (auto& a : args) arg_pointers.push_back(a.data());
        app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
        return exit_status;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return exit_usage;
    } catch (const missing_option& e) {
        // A value the command needs came neither from the flags nor from the environment or the
        // config file: reported as the parser reports a missing option.
        app.exit(CLI::RequiredError(e.what()));
        return exit_usage;
    } catch (const usage_error& e) {
        app.exit(CLI::ValidationError(e.what()));
        return exit_usage;
    } catch (const shedlock::configuration_error& e) {
        log(log_level::error, e.what());
        return exit_config;
    } catch (const shedlock::storage_error& e) {
        log(log_level::error, e.what());
        // A missing table or a refused statement is a setup mistake, not an outage: a crontab
        // line that maps "unavailable" to 0 must not hide it.
        return exit_for_storage(e.category());
    } catch (const std::exception& e) {
        log(log_level::error, e.what());
        return exit_internal;
    }
}
