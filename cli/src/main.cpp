// shedlock: cluster-wide locks for crontab lines, lock inspection, schemas, checks, benchmarks.
#include "commands.hpp"
#include "exit_codes.hpp"
#include "log.hpp"

#include <shedlock/error.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

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
        app.parse(argc, argv);
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
    } catch (const shedlock::configuration_error& e) {
        log(log_level::error, e.what());
        return exit_config;
    } catch (const shedlock::storage_error& e) {
        log(log_level::error, e.what());
        // A missing table is a setup mistake, not an outage: a crontab line that maps
        // "unavailable" to 0 must not hide it.
        return e.category() == shedlock::storage_category::missing_schema ? exit_config : exit_unavailable;
    } catch (const std::exception& e) {
        log(log_level::error, e.what());
        return exit_internal;
    }
}
