#pragma once
// Where tests keep their scratch files and which mode a conformance run is in.

#include <string>

namespace shedlock::test {

/// SHEDLOCK_TEST_MODE ("client_time", "db_time", ...), else the mode compiled into this
/// conformance program; "default" when neither. Defined in test_mode.cpp, which each
/// conformance program compiles itself.
std::string test_mode();

/// A fresh directory under $SHEDLOCK_TEST_TMPDIR (or the system temp dir), per process.
std::string scratch_dir();

}  // namespace shedlock::test
