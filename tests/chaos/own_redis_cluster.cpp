#include "own_redis_cluster.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace shedlock::chaos {

own_redis_cluster::own_redis_cluster(std::string script, std::string dir, int first_port, std::vector<std::string> keys)
    : script_(std::move(script)), dir_(std::move(dir)), first_port_(first_port), keys_(std::move(keys)) {
    if (keys_.empty()) throw std::invalid_argument("own_redis_cluster: no lock key to fail over");
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

own_redis_cluster::~own_redis_cluster() {
    try {
        run("stop");
    } catch (const std::exception&) {
        // The script stops by PID and SIGKILLs what does not stop: nothing more to do here.
    }
}

std::string own_redis_cluster::uri(const std::string& query) const {
    std::string seeds;
    for (int i = 0; i < 6; ++i) seeds += (i ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(first_port_ + i);
    return "redis-cluster://:shedlock-test-pw@" + seeds + "?" + query;
}

void own_redis_cluster::fail_over() {
    const std::string& key = keys_[next_key_++ % keys_.size()];
    run("fail_over", key);
}

void own_redis_cluster::rejoin() { run("rejoin"); }

void own_redis_cluster::run(const std::string& command, const std::string& argument) const {
    const std::string line = "SHEDLOCK_REDIS_CLUSTER_PORT=" + std::to_string(first_port_) + " '" + script_ + "' " +
                             command + " '" + dir_ + "'" + (argument.empty() ? "" : " '" + argument + "'") +
                             " </dev/null >>'" + dir_ + "/cluster.log' 2>&1";
    if (std::system(line.c_str()) != 0)
        throw std::runtime_error("`cluster.sh " + command + "` failed; see " + dir_ + "/cluster.log");
}

}  // namespace shedlock::chaos
