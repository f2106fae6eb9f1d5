#pragma once
// The backends an end-to-end test runs the CLI against.

#include <string>
#include <vector>

namespace shedlock::test {

/// The URI in environment variable `var` (SHEDLOCK_TEST_POSTGRES_URI, ...). Fails the test with a
/// message naming the variable when it is unset: a test that needs a server never passes
/// without one (scripts/test.sh starts them all).
std::string test_server_uri(const char* var);

/// Every backend of the test environment: SQLite, PostgreSQL, MySQL/MariaDB and Redis (each
/// server's URI required, as test_server_uri()). Each gets its own lock table `table` (tests run
/// in parallel) through `shedlock schema apply`, as an operator would do; Redis gets its own prefix.
std::vector<std::string> backend_uris(const std::string& table);

/// The password a URI carries (`scheme://user:PASSWORD@host...`), read independently of the
/// code under test; empty when it carries none.
std::string uri_password(const std::string& uri);

}  // namespace shedlock::test
