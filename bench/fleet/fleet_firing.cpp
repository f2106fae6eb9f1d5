#include "fleet_firing.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace shedlock::bench::fleet {

namespace {

using steady = std::chrono::steady_clock;

struct spawned {
    int pid, to, from;
};

/// Starts this program again in worker mode with pipes for its stdin and stdout. The pipes are
/// close-on-exec (an instance holds no other instance's pipe, so a coordinator's end closing is
/// seen at once), and the instance is killed when the coordinator dies (Ctrl-C, a crash).
spawned spawn_instance(const worker_plan& plan) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const auto args = plan.to_args();
    const int coordinator = getpid();
    const int pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != coordinator) _exit(127);  // it died before the line above
        dup2(in[0], 0), dup2(out[1], 1);  // dup2 clears close-on-exec on 0 and 1
        std::vector<char*> argv{const_cast<char*>("fleet")};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv("/proc/self/exe", argv.data());
        _exit(127);
    }
    close(in[0]), close(out[1]);
    return {pid, in[1], out[0]};
}

enum class line_read { line, closed, silent };

/// The next line of `from` (`pending` holds what was read past the last one), waiting no later
/// than `give_up`.
line_read read_line(int from, std::string& pending, steady::time_point give_up, std::string& line) {
    for (;;) {
        if (const auto nl = pending.find('\n'); nl != std::string::npos) {
            line = pending.substr(0, nl);
            pending.erase(0, nl + 1);
            return line_read::line;
        }
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(give_up - steady::now()).count();
        if (left <= 0) return line_read::silent;
        pollfd ready{from, POLLIN, 0};
        const int polled = poll(&ready, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (polled < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        if (polled <= 0) continue;
        char buffer[4096];
        const ssize_t n = read(from, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return line_read::closed;
        pending.append(buffer, static_cast<std::size_t>(n));
    }
}

/// Writes one line; false when the instance is gone (SIGPIPE is ignored by the coordinator).
bool send(int to, const std::string& line) {
    const std::string text = line + "\n";
    return write(to, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

/// The whole second at least `margin` after now, and no earlier than `not_before`.
wall_time next_due(wall_time not_before) {
    const auto earliest = std::max(std::chrono::system_clock::now() + std::chrono::milliseconds{300}, not_before);
    return std::chrono::ceil<std::chrono::seconds>(earliest);
}

/// `at` (wall clock) on the steady clock.
steady::time_point steady_at(wall_time at) {
    return steady::now() + std::chrono::duration_cast<steady::duration>(at - std::chrono::system_clock::now());
}

std::string instance_name(std::size_t index, std::size_t of, int pid) {
    return "instance " + std::to_string(index + 1) + " of " + std::to_string(of) + " (pid " + std::to_string(pid) + ")";
}

std::string seconds_text(std::chrono::seconds s) { return std::to_string(s.count()) + " s"; }

}  // namespace

void instance_fleet::collect(process& p, steady::time_point start, firing_result& result,
                             std::vector<std::int64_t>& latencies, std::map<int, int>& taken) {
    const std::size_t index = static_cast<std::size_t>(&p - processes_.data());
    const std::string who = instance_name(index, processes_.size(), p.pid);
    // Both clocks start when the due instant has come and this instance is the one being read.
    auto heard = std::max(start, steady::now()), progressed = heard;
    long decided = -1;
    for (;;) {
        std::string line;
        const auto give_up = std::min(heard, progressed) + stall_;
        const line_read got = read_line(p.from, p.pending, give_up, line);
        if (got == line_read::closed) throw std::runtime_error(who + " ended before reporting its decisions");
        if (got == line_read::silent)
            throw std::runtime_error(heard <= progressed
                                         ? who + " sent nothing for " + seconds_text(stall_) + ": it is stopped or hung"
                                         : who + " decided no task for " + seconds_text(stall_) +
                                               ": a decision hangs (a frozen server?)");
        heard = steady::now();
        if (line == "done") return;
        int task = 0, acquired = 0;
        long count = 0;
        long long ns = 0;
        if (line[0] == 'p' && std::sscanf(line.c_str(), "p %ld", &count) == 1) {
            if (count != decided) decided = count, progressed = heard;
        } else if (line[0] == 'd' && std::sscanf(line.c_str(), "d %d %d %lld", &task, &acquired, &ns) == 3) {
            progressed = heard;
            ++result.decisions;
            latencies.push_back(ns);
            if (acquired) ++result.acquisitions, ++taken[task];
        } else if (line[0] == 'e') {
            progressed = heard;
            ++result.errors;
            if (result.first_error.empty()) result.first_error = line.substr(2);
        }
    }
}

namespace {

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

instance_fleet::instance_fleet(const worker_plan& plan, int instances, std::chrono::seconds stall)
    : tasks_(plan.tasks), stall_(stall) {
    signal(SIGPIPE, SIG_IGN);  // an instance that died fails a write, not the coordinator
    try {
        for (int i = 0; i < instances; ++i) {
            const auto p = spawn_instance(plan);
            processes_.push_back({p.pid, p.to, p.from, {}});
            pids_.push_back(p.pid);
        }
        for (std::size_t i = 0; i < processes_.size(); ++i) {
            auto& p = processes_[i];
            std::string line;
            const std::string who = instance_name(i, processes_.size(), p.pid);
            const line_read got = read_line(p.from, p.pending, steady::now() + stall_, line);
            if (got == line_read::silent)
                throw std::runtime_error(who + " did not connect and warm up within " + seconds_text(stall_) +
                                         " (a frozen server?)");
            if (got != line_read::line || line != "ready")
                throw std::runtime_error(who + " did not start (see its error above)");
        }
    } catch (...) {
        kill_all();
        throw;
    }
}

instance_fleet::~instance_fleet() {
    for (const auto& p : processes_)
        if (p.pid > 0) send(p.to, "quit");
    // Each closes its stdout when it exits; one that does not within the stall bound is killed.
    const auto give_up = steady::now() + stall_;
    try {
        for (auto& p : processes_) {
            std::string line;
            if (p.pid > 0)
                while (read_line(p.from, p.pending, give_up, line) == line_read::line) {}
        }
    } catch (const std::exception&) {  // poll failed: killed below all the same
    }
    kill_all();
}

void instance_fleet::kill_all() noexcept {
    for (auto& p : processes_) {
        if (p.pid <= 0) continue;
        kill(p.pid, SIGKILL);
        waitpid(p.pid, nullptr, 0);
        close(p.to), close(p.from);
        p.pid = -1;
    }
}

firing_result instance_fleet::fire(const std::string& name_set, server_probe& probe, wall_time not_before) {
    firing_result result;
    const live_figures live_before = probe.live(pids_);
    result.before = probe.counters();
    result.due = next_due(not_before);
    const auto due_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(result.due.time_since_epoch()).count();
    const auto due_steady = steady_at(result.due);
    try {
        for (std::size_t i = 0; i < processes_.size(); ++i)
            if (!send(processes_[i].to, "fire " + name_set + " " + std::to_string(due_ns)))
                throw std::runtime_error(instance_name(i, processes_.size(), processes_[i].pid) + " is gone");
        std::vector<std::int64_t> latencies;
        std::map<int, int> taken;
        for (auto& p : processes_) collect(p, due_steady, result, latencies, taken);
        result.latency = summarize(latencies);
        for (const auto& [task, count] : taken) result.duplicates += count > 1 ? count - 1 : 0;
        result.unacquired = tasks_ - static_cast<long>(taken.size());
    } catch (...) {
        kill_all();
        throw;
    }
    result.live = probe.live(pids_);
    result.server_cpu_ns = cpu_delta(live_before, result.live, result.late_connections);
    result.pooler_cpu_ns = static_cast<double>(result.live.pooler_cpu_ns - live_before.pooler_cpu_ns);
    result.after = probe.settled(result.before, static_cast<double>(result.decisions + result.acquisitions), result.live);
    return result;
}

}  // namespace shedlock::bench::fleet
