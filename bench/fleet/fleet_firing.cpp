#include "fleet_firing.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace shedlock::bench::fleet {

namespace {

struct spawned {
    int pid;
    FILE *to, *from;
};

/// Starts this program again in worker mode with pipes for its stdin and stdout.
spawned spawn_instance(const worker_plan& plan) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const auto args = plan.to_args();
    const int pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        dup2(in[0], 0), dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        std::vector<char*> argv{const_cast<char*>("fleet")};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv("/proc/self/exe", argv.data());
        _exit(127);
    }
    close(in[0]), close(out[1]);
    return {pid, fdopen(in[1], "w"), fdopen(out[0], "r")};
}

std::string read_instance_line(FILE* from) {
    char buffer[1024];
    if (std::fgets(buffer, sizeof buffer, from) == nullptr) return {};
    std::string line(buffer);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
}

void send(FILE* to, const std::string& line) {
    std::fprintf(to, "%s\n", line.c_str());
    std::fflush(to);
}

/// The whole second at least `margin` after now, and no earlier than `not_before`.
wall_time next_due(wall_time not_before) {
    const auto earliest = std::max(std::chrono::system_clock::now() + std::chrono::milliseconds{300}, not_before);
    return std::chrono::ceil<std::chrono::seconds>(earliest);
}

/// Reads one instance's decisions into `result`, counting acquisitions per task.
void collect(FILE* from, firing_result& result, std::vector<std::int64_t>& latencies, std::map<int, int>& taken) {
    for (std::string line = read_instance_line(from); line != "done"; line = read_instance_line(from)) {
        if (line.empty()) throw std::runtime_error("an instance ended before reporting its decisions");
        int task = 0, acquired = 0;
        long long ns = 0;
        if (line[0] == 'd' && std::sscanf(line.c_str(), "d %d %d %lld", &task, &acquired, &ns) == 3) {
            ++result.decisions;
            latencies.push_back(ns);
            if (acquired) ++result.acquisitions, ++taken[task];
        } else if (line[0] == 'e') {
            ++result.errors;
            if (result.first_error.empty()) result.first_error = line.substr(2);
        }
    }
}

double cpu_delta(const live_figures& before, const live_figures& after, int& late) {
    double total = 0;
    for (const auto& [pid, ns] : after.server_cpu_ns) {
        const auto it = before.server_cpu_ns.find(pid);
        if (it == before.server_cpu_ns.end()) ++late;
        total += static_cast<double>(ns - (it == before.server_cpu_ns.end() ? 0 : it->second));
    }
    return total;
}

}  // namespace

instance_fleet::instance_fleet(const worker_plan& plan, int instances) : tasks_(plan.tasks) {
    for (int i = 0; i < instances; ++i) {
        const auto p = spawn_instance(plan);
        processes_.push_back({p.pid, p.to, p.from});
        pids_.push_back(p.pid);
    }
    for (const auto& p : processes_)
        if (read_instance_line(p.from) != "ready") throw std::runtime_error("an instance did not start (see its error above)");
}

instance_fleet::~instance_fleet() {
    for (const auto& p : processes_) {
        send(p.to, "quit");
        std::fclose(p.to), std::fclose(p.from);
        waitpid(p.pid, nullptr, 0);
    }
}

firing_result instance_fleet::fire(const std::string& name_set, server_probe& probe, wall_time not_before) {
    firing_result result;
    const live_figures live_before = probe.live(pids_);
    result.before = probe.counters();
    result.due = next_due(not_before);
    const auto due_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(result.due.time_since_epoch()).count();
    for (const auto& p : processes_) send(p.to, "fire " + name_set + " " + std::to_string(due_ns));

    std::vector<std::int64_t> latencies;
    std::map<int, int> taken;
    for (const auto& p : processes_) collect(p.from, result, latencies, taken);
    result.live = probe.live(pids_);
    result.server_cpu_ns = cpu_delta(live_before, result.live, result.late_connections);
    result.pooler_cpu_ns = static_cast<double>(result.live.pooler_cpu_ns - live_before.pooler_cpu_ns);
    result.after = probe.settled(result.before, static_cast<double>(result.decisions + result.acquisitions), result.live);
    for (const auto& [task, count] : taken) result.duplicates += count > 1 ? count - 1 : 0;
    result.unacquired = tasks_ - static_cast<long>(taken.size());
    result.latency = summarize(latencies);
    return result;
}

}  // namespace shedlock::bench::fleet
