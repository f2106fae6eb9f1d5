#include "processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace asio_service_check {
namespace {

using namespace std::chrono_literals;

std::string port_file(const backend_run& run, std::size_t k) { return run.dir + "/port-" + std::to_string(k); }

service_process spawn(const std::string& app, const backend_run& run, const std::string& prefix, std::size_t k) {
    service_process p;
    p.log = run.dir + "/process-" + std::to_string(k) + ".log";
    const std::vector<std::string> args{app,           "--uri",     run.uri, "--port",  "0", "--port-file",
                                        port_file(run, k), "--journal", run.dir + "/journal", "--prefix", prefix};
    p.pid = ::fork();
    if (p.pid != 0) return p;
    const int fd = ::open(p.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(app.c_str(), argv.data());
    ::_exit(127);
}

std::string tail_of(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const auto all = text.str();
    return all.size() > 600 ? "..." + all.substr(all.size() - 600) : all;
}

/// True once `p` has exited (it is reaped then, and its failure recorded).
bool ended_early(const backend_run& run, service_process& p, std::vector<std::string>& problems) {
    int status = 0;
    if (::waitpid(p.pid, &status, WNOHANG) != p.pid) return false;
    p.reaped = true;
    problems.push_back(run.name + " pid " + std::to_string(p.pid) + " ended (status " + std::to_string(status) +
                       ") before it listened: " + tail_of(p.log));
    return true;
}

/// Waits until process k of every run has written its port, until `deadline` at most.
void await_ports(std::vector<backend_run>& runs, std::size_t k, std::chrono::steady_clock::time_point deadline,
                 std::vector<std::string>& problems) {
    for (auto& run : runs) {
        auto& p = run.processes[k];
        while (p.port == 0 && !ended_early(run, p, problems) && std::chrono::steady_clock::now() < deadline) {
            std::ifstream in(port_file(run, k));
            if (!(in >> p.port)) std::this_thread::sleep_for(20ms);
        }
        if (p.port == 0 && !p.reaped)
            problems.push_back(run.name + " process " + std::to_string(k) + " (pid " + std::to_string(p.pid) +
                               ") did not start listening within 30 s: " + tail_of(p.log));
    }
}

}  // namespace

std::chrono::steady_clock::time_point start_clusters(const std::string& app, const std::string& dir,
                                                     const std::string& prefix, std::vector<backend_run>& runs,
                                                     std::vector<std::string>& problems) {
    for (auto& run : runs) {
        run.dir = dir + "/" + run.name;
        std::filesystem::create_directories(run.dir);
    }
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    for (auto& run : runs) run.processes.push_back(spawn(app, run, prefix, 0));
    await_ports(runs, 0, deadline, problems);
    if (!problems.empty()) return std::chrono::steady_clock::now();
    for (std::size_t k = 1; k < 3; ++k)
        for (auto& run : runs) run.processes.push_back(spawn(app, run, prefix, k));
    await_ports(runs, 1, deadline, problems);
    await_ports(runs, 2, deadline, problems);
    return std::chrono::steady_clock::now();
}

void stop_clusters(std::vector<backend_run>& runs, std::chrono::seconds grace, std::vector<std::string>& problems) {
    for (auto& run : runs)
        for (auto& p : run.processes)
            if (!p.reaped) ::kill(p.pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    for (auto& run : runs)
        for (auto& p : run.processes) {
            if (p.reaped) continue;  // its end is a problem already
            int status = 0;
            while (::waitpid(p.pid, &status, WNOHANG) == 0) {
                if (std::chrono::steady_clock::now() >= deadline) {
                    ::kill(p.pid, SIGKILL);
                    ::waitpid(p.pid, &status, 0);
                    problems.push_back(run.name + " pid " + std::to_string(p.pid) + " did not stop within " +
                                       std::to_string(grace.count()) + " s of SIGTERM (killed)");
                    break;
                }
                std::this_thread::sleep_for(20ms);
            }
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                problems.push_back(run.name + " pid " + std::to_string(p.pid) + " ended with status " +
                                   std::to_string(status) + ": " + tail_of(p.log));
        }
}

}  // namespace asio_service_check
