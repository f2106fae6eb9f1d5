// Compiled into each conformance program on its own (not into shedlock_test_support): the
// program's mode is a compile definition of that program (SHEDLOCK_TEST_MODE_DEFAULT).
#include "test_env.hpp"

#include <cstdlib>

namespace shedlock::test {

std::string test_mode() {
    const char* mode = std::getenv("SHEDLOCK_TEST_MODE");
#ifdef SHEDLOCK_TEST_MODE_DEFAULT
    return mode && *mode ? mode : SHEDLOCK_TEST_MODE_DEFAULT;
#else
    return mode && *mode ? mode : "default";
#endif
}

}  // namespace shedlock::test
