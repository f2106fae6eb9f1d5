#pragma once
// The backends an end-to-end test runs the CLI against.

#include <string>
#include <vector>

namespace shedlock::test {

/// Every backend of the test environment: SQLite always, servers when their URI is exported.
/// Each gets its own lock table `table` (tests run in parallel) through `shedlock schema apply`,
/// as an operator would do; Redis gets its own prefix.
std::vector<std::string> backend_uris(const std::string& table);

}  // namespace shedlock::test
