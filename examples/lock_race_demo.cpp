// Three "instances" (processes) race for the same named lock once per second on one SQLite
// file, the way N replicas of a service fire the same timer. Each round exactly one runs the job.
//
//   lock_race_demo [db-path] [rounds=10]
//
// Prints who ran each round and a summary with the duplicate count; exits 1 on any duplicate
// or missed round.
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono;
constexpr int instances = 3;
const char* const instance_names[instances] = {"A", "B", "C"};

struct round_log {
    std::vector<std::string> ran;      // "B (token 4)"
    std::vector<std::string> skipped;  // "A"
};

/// One instance: at every round boundary (plus timer jitter) try the lock; the winner "works".
void run_instance(int index, const std::string& db, int rounds, system_clock::time_point start, int out_fd) {
    shedlock::providers::sqlite_options options;
    options.path = db;
    auto provider = shedlock::providers::make_sqlite_lock_provider(options);
    // lock_at_least_for covers the timer skew between instances: a late timer finds it still held.
    const shedlock::lock_configuration config{"demo:nightly-report", seconds{30}, milliseconds{500}};
    std::mt19937 jitter(std::random_device{}());
    for (int round = 1; round <= rounds; ++round) {
        std::this_thread::sleep_until(start + seconds{round} + milliseconds{jitter() % 80});
        auto held = provider->try_lock(config);
        std::string line = std::to_string(round) + " " + instance_names[index] + " ";
        if (held) {
            std::this_thread::sleep_for(milliseconds{50});  // the job
            line += "ran " + std::to_string(held->fencing_token().value_or(0));
            held->unlock();
        } else {
            line += "skipped 0";
        }
        line += "\n";
        (void)!::write(out_fd, line.data(), line.size());  // < PIPE_BUF: atomic
    }
}

std::map<int, round_log> collect(int in_fd) {
    std::map<int, round_log> log;
    std::string buffer;
    char chunk[4096];
    for (ssize_t n; (n = ::read(in_fd, chunk, sizeof chunk)) > 0;) buffer.append(chunk, static_cast<std::size_t>(n));
    int round = 0;
    long token = 0;
    char who[8], what[16];
    for (std::size_t pos = 0, end; (end = buffer.find('\n', pos)) != std::string::npos; pos = end + 1) {
        if (std::sscanf(buffer.substr(pos, end - pos).c_str(), "%d %7s %15s %ld", &round, who, what, &token) != 4) continue;
        auto& entry = log[round];
        if (std::string(what) == "ran") entry.ran.push_back(std::string(who) + " (fencing token " + std::to_string(token) + ")");
        else entry.skipped.push_back(who);
    }
    return log;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out.empty() ? "-" : out;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string db = argc > 1 ? argv[1] : "shedlock-demo.db";
    const int rounds = argc > 2 ? std::stoi(argv[2]) : 10;
    {
        shedlock::providers::sqlite_options options;
        options.path = db;
        options.create_schema_if_missing = true;
        (void)shedlock::providers::make_sqlite_lock_provider(options);
    }
    std::printf("shedlock demo: %d instances race for lock \"demo:nightly-report\" every second, %d rounds, on sqlite:%s\n",
                instances, rounds, db.c_str());
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return 2;
    const auto start = system_clock::now();
    for (int i = 0; i < instances; ++i) {
        if (::fork() == 0) {
            ::close(pipe_fds[0]);
            run_instance(i, db, rounds, start, pipe_fds[1]);
            ::_exit(0);
        }
    }
    ::close(pipe_fds[1]);
    const auto log = collect(pipe_fds[0]);
    while (::wait(nullptr) > 0) {
    }
    int executions = 0, skips = 0, duplicates = 0, missed = 0;
    for (int round = 1; round <= rounds; ++round) {
        const auto it = log.find(round);
        const round_log entry = it == log.end() ? round_log{} : it->second;
        std::printf("round %2d: ran on %s; skipped on %s\n", round, join(entry.ran).c_str(), join(entry.skipped).c_str());
        executions += static_cast<int>(entry.ran.size());
        skips += static_cast<int>(entry.skipped.size());
        if (entry.ran.size() > 1) duplicates += static_cast<int>(entry.ran.size()) - 1;
        if (entry.ran.empty()) ++missed;
    }
    std::printf("summary: %d rounds, %d executions, %d skips, %d duplicates, %d missed -> %s\n", rounds, executions, skips,
                duplicates, missed, duplicates == 0 && missed == 0 ? "each round ran exactly once" : "FAILED");
    return duplicates == 0 && missed == 0 ? 0 : 1;
}
