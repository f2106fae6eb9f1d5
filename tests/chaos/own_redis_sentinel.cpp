#include "own_redis_sentinel.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace shedlock::chaos {

own_redis_sentinel::own_redis_sentinel(std::string script, std::string dir, int port_base)
    : script_(std::move(script)), dir_(std::move(dir)), base_(port_base) {
    std::filesystem::create_directories(dir_);
    try {
        run("start");
    } catch (...) {
        // A start that failed half-way leaves nodes running, and no destructor will stop them:
        // they would hold their ports (and make connections) for every later test.
        try {
            run("stop");
        } catch (...) {
        }
        throw;
    }
}

own_redis_sentinel::~own_redis_sentinel() {
    try {
        run("stop");
    } catch (const std::exception&) {
        // The script stops by PID and SIGKILLs what does not stop: nothing more to do here.
    }
}

std::string own_redis_sentinel::uri(const std::string& query) const {
    std::string hosts;
    for (int i = 0; i < 3; ++i) hosts += (i ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(first_sentinel_port() + i);
    return "redis-sentinel://:shedlock-test-pw@" + hosts + "/shedlock-primary?sentinel_password=sentinel-test-pw&" + query;
}

void own_redis_sentinel::fail_over() { run("fail_over"); }

void own_redis_sentinel::rejoin() { run("rejoin"); }

void own_redis_sentinel::run(const std::string& command) const {
    const std::string line = "SHEDLOCK_SENTINEL_BASE=" + std::to_string(base_) + " '" + script_ + "' " + command + " '" +
                             dir_ + "' </dev/null >>'" + dir_ + "/sentinel.log' 2>&1";
    if (std::system(line.c_str()) != 0)
        throw std::runtime_error("`sentinel.sh " + command + "` failed; see " + dir_ + "/sentinel.log");
}

}  // namespace shedlock::chaos
