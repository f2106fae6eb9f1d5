#include "own_postgres_pair.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace shedlock::chaos {

own_postgres_pair::own_postgres_pair(std::string script, std::string dir, bool synchronous, std::pair<int, int> ports,
                                     const std::string& delay_proxy, std::pair<int, int> relay_ports,
                                     std::chrono::microseconds lag)
    : script_(std::move(script)), dir_(std::move(dir)), port_a_(ports.first), port_b_(ports.second) {
    std::filesystem::create_directories(dir_);
    std::string arguments =
        std::string(synchronous ? "sync " : "async ") + std::to_string(port_a_) + " " + std::to_string(port_b_);
    if (!delay_proxy.empty())
        arguments += " '" + delay_proxy + "' " + std::to_string(relay_ports.first) + " " +
                     std::to_string(relay_ports.second) + " " + std::to_string(lag.count());
    try {
        run("start", arguments);
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

own_postgres_pair::~own_postgres_pair() {
    try {
        run("stop");
    } catch (const std::exception&) {
        // The script stops by PID and SIGKILLs what does not stop: nothing more to do here.
    }
}

std::string own_postgres_pair::uri(const std::string& query) const {
    return "postgresql://shedlock:shedlock-test-pw@127.0.0.1:" + std::to_string(port_a_) + ",127.0.0.1:" +
           std::to_string(port_b_) + "/shedlock_test?" + query;
}

void own_postgres_pair::fail_over() { run("fail_over"); }

void own_postgres_pair::rejoin() { run("rejoin"); }

void own_postgres_pair::run(const std::string& command, const std::string& arguments) const {
    const std::string line = "'" + script_ + "' " + command + " '" + dir_ + "' " + arguments + " </dev/null >>'" + dir_ +
                             "/pair.log' 2>&1";
    if (std::system(line.c_str()) != 0)
        throw std::runtime_error("`pair.sh " + command + "` failed; see " + dir_ + "/pair.log");
}

}  // namespace shedlock::chaos
