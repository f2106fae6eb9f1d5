#pragma once
// Each subcommand's command line: its options, help texts and checks, filled into the command's
// option struct (<name>_command.hpp); its callback runs the command and stores the process exit
// status. All are defined in main.cpp, the only translation unit that includes CLI11: the parser
// is a large header-only library, and one copy of it keeps the binary small, the code a start
// touches few, and the build short.

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
