#pragma once
// The fault injector: every second or two, one fault on a running attempt, a server or the
// network between the workers and a server. Client clock faults are drawn per attempt by the
// workers (attempt_plan) and are not injected here.

#include "attempt_registry.hpp"
#include "backend.hpp"
#include "options.hpp"
#include "tcp_proxy.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace shedlock::chaos {

/// One injected fault and when it was in force (start == end for instant ones).
struct fault_event {
    std::string kind;
    std::int64_t start_us = 0;
    std::int64_t end_us = 0;
    int server = -1;           ///< restart and network faults
    std::int64_t attempt = -1; ///< faults on one attempt
};

class fault_injector {
public:
    /// proxies[i] stands in front of setup.servers[i].
    fault_injector(const run_options& options, backend_setup& setup, std::vector<std::unique_ptr<tcp_proxy>>& proxies,
                   attempt_registry& registry, std::uint64_t seed);

    /// Injects until `stop` (checked every few ms); then heals the network and continues every
    /// stopped attempt. A fault in progress (a restart) is completed first.
    void run(const std::atomic<bool>& stop);
    std::vector<fault_event> events() const;
    /// Why injection stopped early (a server that did not come back); empty when it did not.
    std::string error() const;

private:
    std::vector<std::string> applicable_kinds() const;
    /// False when the kind found no target this time (no holder running): nothing was injected.
    bool inject(const std::string& kind);
    /// inject(), retried every 50 ms for up to a second while it finds no target.
    bool inject_soon(const std::string& kind, const std::atomic<bool>& stop);
    bool kill_cli();
    bool kill_command();
    bool stop_holder();
    void restart_server();
    void network(const std::string& kind);
    /// release_delay: for each command that asked (a request file in the work dir), holds its
    /// server's network (a black hole) for at_most - hold - 500 ms and acknowledges; the release
    /// its `shedlock run` sends next then arrives late, with the lease still live.
    void serve_release_delays();
    /// Ends the release delays whose time has come (all of them with `all`) and records them.
    void end_release_delays(bool all);
    /// Sleeps `us` (less if `stop` is given and set) while continuing stopped attempts whose
    /// time has come.
    void tend(std::int64_t us, const std::atomic<bool>* stop = nullptr);
    void continue_due(bool all);
    void record(fault_event e);
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

    const run_options& options_;
    backend_setup& setup_;
    std::vector<std::unique_ptr<tcp_proxy>>& proxies_;
    attempt_registry& registry_;
    std::mt19937_64 rng_;
    struct pending_cont {
        std::int64_t due_us;
        std::int64_t attempt;
    };
    std::vector<pending_cont> pending_;
    struct release_delay {
        int server;
        std::int64_t start_us;
        std::int64_t end_us;
    };
    std::vector<release_delay> release_delays_;
    mutable std::mutex events_mutex_;
    std::vector<fault_event> events_;
    std::string error_;
};

}  // namespace shedlock::chaos
