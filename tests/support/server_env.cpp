#include "server_env.hpp"

#include <cstdlib>
#include <stdexcept>

namespace shedlock::test {

std::string required_env(const std::string& name, const std::string& set_by) {
    const char* value = std::getenv(name.c_str());
    if (!value || !*value)
        throw std::runtime_error(name + " is not set: start the test server with `eval \"$(" + set_by +
                                 " start /tmp/somedir)\"` or run scripts/test.sh");
    return value;
}

void control_server(const std::string& env_prefix, const std::string& command) {
    const std::string script = required_env(env_prefix + "_SCRIPT", "providers/<name>/server.sh");
    const std::string dir = required_env(env_prefix + "_DIR", "providers/<name>/server.sh");
    const std::string line = "'" + script + "' " + command + " '" + dir + "' </dev/null >/dev/null 2>&1";
    if (std::system(line.c_str()) != 0) throw std::runtime_error("`" + script + " " + command + " " + dir + "` failed");
}

bool is_test_pooler(const std::string& uri) {
    for (const char* mode : {"TRANSACTION", "SESSION", "TRANSACTION_IGNORING"}) {
        const char* pooler = std::getenv(("SHEDLOCK_TEST_PGBOUNCER_" + std::string(mode) + "_URI").c_str());
        if (pooler && uri.rfind(pooler, 0) == 0) return true;
    }
    return false;
}

}  // namespace shedlock::test
