#pragma once
// Where the test database servers are (set by providers/<name>/server.sh start) and how a test
// stops and restarts one.

#include <string>

namespace shedlock::test {

/// The value of environment variable `name`; throws std::runtime_error naming the variable and
/// the script that sets it when it is unset, so the test fails with a clear message.
std::string required_env(const std::string& name, const std::string& set_by);

/// Runs `<script> <command> <dir>` with the script and data dir taken from the environment
/// variables `<prefix>_SCRIPT` and `<prefix>_DIR` (e.g. SHEDLOCK_TEST_POSTGRES); command is
/// `halt` (stop, keep data) or `resume` (start again on the same data). Throws on failure.
void control_server(const std::string& env_prefix, const std::string& command);

/// Whether `uri` is one of the PgBouncers that providers/postgres/server.sh starts (the
/// SHEDLOCK_TEST_PGBOUNCER_*_URI variables): the PostgreSQL suite runs once more through them
/// (providers/postgres/lanes.sh), and a case may expect what a pooler changes.
bool is_test_pooler(const std::string& uri);

}  // namespace shedlock::test
