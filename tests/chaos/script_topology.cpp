#include "script_topology.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace shedlock::chaos {

std::string port_list(const std::vector<int>& ports) {
    std::string out;
    for (int p : ports) out += (out.empty() ? "" : " ") + std::to_string(p);
    return out;
}

std::string loopback_hosts(const std::vector<int>& ports) {
    std::string out;
    for (int p : ports) out += (out.empty() ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(p);
    return out;
}

script_topology::script_topology(std::string script, std::string dir, std::string env, std::string log,
                                 const std::string& start_arguments)
    : script_(std::move(script)), dir_(std::move(dir)), env_(std::move(env)), log_(std::move(log)) {
    std::filesystem::create_directories(dir_);
    try {
        run("start", start_arguments);
    } catch (...) {
        try {
            run("stop");
        } catch (...) {
        }
        throw;
    }
}

script_topology::~script_topology() {
    try {
        run("stop");
    } catch (const std::exception&) {
        // The scripts stop by PID and SIGKILL what does not stop: nothing more to do here.
    }
}

void script_topology::run(const std::string& command, const std::string& arguments) const {
    const std::string line = env_ + (env_.empty() ? "" : " ") + "'" + script_ + "' " + command + " '" + dir_ + "'" +
                             (arguments.empty() ? "" : " " + arguments) + " </dev/null >>'" + dir_ + "/" + log_ +
                             "' 2>&1";
    if (std::system(line.c_str()) != 0)
        throw std::runtime_error("`" + std::filesystem::path(script_).filename().string() + " " + command +
                                 "` failed; see " + dir_ + "/" + log_);
}

}  // namespace shedlock::chaos
