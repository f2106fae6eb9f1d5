#pragma once
// Each subcommand registers itself on the app; its callback stores the process exit status.

namespace CLI {
class App;
}

namespace shedlock::cli {

void add_run_command(CLI::App& app, int& exit_status);
void add_locks_command(CLI::App& app, int& exit_status);
void add_schema_command(CLI::App& app, int& exit_status);
void add_doctor_command(CLI::App& app, int& exit_status);
void add_bench_command(CLI::App& app, int& exit_status);
void add_runs_command(CLI::App& app, int& exit_status);
void add_daemon_command(CLI::App& app, int& exit_status);
void add_claims_command(CLI::App& app, int& exit_status);

}  // namespace shedlock::cli
