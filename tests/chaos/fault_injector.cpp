#include "fault_injector.hpp"

#include "chaos_clock.hpp"
#include "process.hpp"

#include "attempt_plan.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace shedlock::chaos {
namespace {

constexpr std::int64_t tend_step_us = 10'000;

bool has_command(const running_attempt& r) { return !children_of(r.cli).empty(); }

/// A pidfd of the command `shedlock run` started; -1 when it has none (not yet, or no more).
int command_pidfd(pid_t cli) {
    for (pid_t child : children_of(cli))
        if (const int fd = open_child_pidfd(cli, child); fd >= 0) return fd;
    return -1;
}

}  // namespace

fault_injector::fault_injector(const run_options& options, backend_setup& setup,
                               std::vector<std::unique_ptr<tcp_proxy>>& proxies, attempt_registry& registry,
                               std::uint64_t seed)
    : options_(options), setup_(setup), proxies_(proxies), registry_(registry), rng_(seed) {}

std::vector<std::string> fault_injector::applicable_kinds() const {
    std::vector<std::string> kinds;
    for (const auto& kind : options_.faults) {
        // Drawn per attempt by the workers (release_delay is then served by tend()).
        if (kind == "clock" || kind == "clock_jump" || kind == "release_delay") continue;
        const bool needs_server = kind == "restart";
        const bool needs_network = kind == "latency" || kind == "black_hole" || kind == "reset";
        if (needs_server && setup_.servers.empty()) continue;
        if (needs_network && proxies_.empty()) continue;
        kinds.push_back(kind);
    }
    return kinds;
}

void fault_injector::run(const std::atomic<bool>& stop) {
    const auto kinds = applicable_kinds();
    // Every kind once per round, in random order, so that each configured kind fires within the
    // first rounds of even a short run (a run where one never fired fails: fault_coverage.hpp).
    // A kind that found no target goes to the front of the round: tried again after the others.
    std::vector<std::string> round;
    // Bounded in time: every pass sleeps, then injects one fault of bounded duration.
    while (!stop) {
        tend(ms_to_us(uniform(500, 2000)), &stop);
        if (stop || kinds.empty()) continue;
        if (round.empty()) {
            round = kinds;
            std::shuffle(round.begin(), round.end(), rng_);
        }
        try {
            const std::string kind = round.back();
            round.pop_back();
            if (!inject_soon(kind, stop)) round.insert(round.begin(), kind);
        } catch (const std::exception& e) {
            std::lock_guard lock(events_mutex_);
            error_ = e.what();
            break;
        }
    }
    end_release_delays(true);
    for (auto& proxy : proxies_) proxy->heal();
    continue_due(true);
}

// A fault on a running attempt needs one in the right phase (a holder whose command runs):
// rare on a contended lane, where most attempts end in 75 within milliseconds. Looking again
// every 50 ms for a second makes such a kind fire in a short run too.
bool fault_injector::inject_soon(const std::string& kind, const std::atomic<bool>& stop) {
    for (int tries = 0; tries < 20 && !stop; ++tries) {
        if (inject(kind)) return true;
        tend(50'000, &stop);
    }
    return false;
}

bool fault_injector::inject(const std::string& kind) {
    if (kind == "kill_cli") return kill_cli();
    if (kind == "kill_command") return kill_command();
    if (kind == "stop") return stop_holder();
    if (kind == "restart") restart_server();
    else network(kind);
    return true;
}

bool fault_injector::kill_cli() {
    return registry_.with_random(
        rng_, [](const running_attempt& r) { return !r.faults.stopped && !r.faults.killed_cli; },
        [this](running_attempt& r) {
            ::kill(r.cli, SIGKILL);
            const std::int64_t now = now_us();
            r.faults.killed_cli = true;
            r.faults.kill_us = now;
            record({"kill_cli", now, now, -1, r.plan.id});
        });
}

// True only when a command was really killed: one that exited between the choice and the
// signal is no fault, and the round tries the kind again (a run where it never fired fails).
bool fault_injector::kill_command() {
    bool killed = false;
    registry_.with_random(
        rng_, [](const running_attempt& r) { return !r.faults.stopped && !r.faults.killed_cli && has_command(r); },
        [&](running_attempt& r) {
            const int fd = command_pidfd(r.cli);
            if (fd < 0 || !send_signal(fd, SIGKILL)) {
                if (fd >= 0) ::close(fd);
                return;
            }
            killed = true;
            ::close(fd);
            r.faults.killed_command = true;
            const std::int64_t now = now_us();
            record({"kill_command", now, now, -1, r.plan.id});
        });
    return killed;
}

// Stops `shedlock run` and its command past the lease, so another worker takes the lock while
// this holder still believes it has it; both are continued later (continue_due).
bool fault_injector::stop_holder() {
    const std::int64_t stop_for = ms_to_us(options_.at_most.count() + uniform(300, 1000));
    return registry_.with_random(
        rng_, [](const running_attempt& r) { return !r.faults.stopped && !r.faults.killed_cli && has_command(r); },
        [&](running_attempt& r) {
            ::kill(r.cli, SIGSTOP);
            r.stopped_command_pidfd = command_pidfd(r.cli);
            if (r.stopped_command_pidfd >= 0) send_signal(r.stopped_command_pidfd, SIGSTOP);
            r.faults.stopped = true;
            r.faults.stop_us = now_us();
            pending_.push_back({r.faults.stop_us + stop_for, r.plan.id});
        });
}

void fault_injector::continue_due(bool all) {
    const std::int64_t now = now_us();
    std::erase_if(pending_, [&](const pending_cont& p) {
        if (!all && p.due_us > now) return false;
        fault_event e{"stop", 0, now, -1, p.attempt};
        registry_.with_attempt(p.attempt, [&](running_attempt& r) {
            ::kill(r.cli, SIGCONT);
            if (r.stopped_command_pidfd >= 0) {
                send_signal(r.stopped_command_pidfd, SIGCONT);
                ::close(r.stopped_command_pidfd);
                r.stopped_command_pidfd = -1;
            }
            r.faults.cont_us = now;
            e.start_us = r.faults.stop_us;
        });
        if (e.start_us > 0) record(e);
        return true;
    });
}

void fault_injector::restart_server() {
    const int server = uniform(0, static_cast<int>(setup_.servers.size()) - 1);
    const std::int64_t start = now_us();
    // Recorded however it ends: a halt that did its work before it failed (a primary killed, a
    // failover under way) or a resume that never came back still changed what the lanes may see,
    // and the analysis must know when (it excuses a volatile store's losses across a restart).
    struct record_on_exit {
        fault_injector& self;
        std::int64_t start;
        int server;
        ~record_on_exit() { self.record({"restart", start, now_us(), server, -1}); }
    } recorded{*this, start, server};
    setup_.servers[server].halt();
    tend(ms_to_us(uniform(300, 1500)));
    // A server left down would fail every later test on it: try hard to bring it back.
    for (int tries = 1;; ++tries) {
        try {
            setup_.servers[server].resume();
            break;
        } catch (const std::exception&) {
            if (tries == 3) throw;
            tend(1'000'000);
        }
    }
}

void fault_injector::network(const std::string& kind) {
    const int server = uniform(0, static_cast<int>(proxies_.size()) - 1);
    tcp_proxy& proxy = *proxies_[server];
    const std::int64_t start = now_us();
    if (kind == "reset") {
        proxy.reset_all();
    } else if (kind == "latency") {
        proxy.set_latency(std::chrono::milliseconds{uniform(50, 200)});
        tend(ms_to_us(uniform(1000, 3000)));
    } else {
        proxy.set_black_hole(true);
        tend(ms_to_us(uniform(500, 2500)));
    }
    proxy.heal();
    record({kind, start, now_us(), server, -1});
}

void fault_injector::serve_release_delays() {
    end_release_delays(false);
    DIR* dir = ::opendir(options_.work_dir.c_str());
    if (!dir) return;
    const std::string prefix = release_delay_prefix;
    const std::int64_t hold_us = ms_to_us(options_.at_most.count()) - ms_to_us(600);
    while (const dirent* entry = ::readdir(dir)) {
        const std::string file = entry->d_name;
        if (file.rfind(prefix, 0) != 0) continue;
        int server = -1;
        registry_.with_attempt(std::stoll(file.substr(prefix.size())),
                               [&](running_attempt& r) { server = setup_.lanes[r.plan.lane].server; });
        const bool busy = std::any_of(release_delays_.begin(), release_delays_.end(),
                                      [&](const release_delay& d) { return d.server == server; });
        // One hold per server at a time: a request during one is acknowledged as it is (its
        // release then waits for the hole in force, which is delay enough).
        if (server >= 0 && server < static_cast<int>(proxies_.size()) && !busy) {
            proxies_[server]->set_black_hole(true);
            const std::int64_t now = now_us();
            release_delays_.push_back({server, now, now + hold_us});
        }
        ::unlink((options_.work_dir + "/" + file).c_str());
    }
    ::closedir(dir);
}

void fault_injector::end_release_delays(bool all) {
    const std::int64_t now = now_us();
    std::erase_if(release_delays_, [&](const release_delay& d) {
        if (!all && d.end_us > now) return false;
        proxies_[d.server]->set_black_hole(false);
        record({"release_delay", d.start_us, now, d.server, -1});
        return true;
    });
}

void fault_injector::tend(std::int64_t us, const std::atomic<bool>* stop) {
    const std::int64_t end = now_us() + us;
    const bool delays = options_.faults.count("release_delay") > 0;
    // Bounded: the end does not move; each step sleeps at most 1 ms while release delays are
    // served (a command waits for its acknowledgement), else tend_step_us.
    const std::int64_t step = delays ? 1'000 : tend_step_us;
    while (now_us() < end && !(stop && *stop)) {
        continue_due(false);
        if (delays) serve_release_delays();
        sleep_us(std::min(step, end - now_us()));
    }
    continue_due(false);
    if (delays) serve_release_delays();
}

void fault_injector::record(fault_event e) {
    std::lock_guard lock(events_mutex_);
    events_.push_back(std::move(e));
}

std::vector<fault_event> fault_injector::events() const {
    std::lock_guard lock(events_mutex_);
    return events_;
}

std::string fault_injector::error() const {
    std::lock_guard lock(events_mutex_);
    return error_;
}

}  // namespace shedlock::chaos
