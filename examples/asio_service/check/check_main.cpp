// The CI test of examples/asio_service: THREE processes of the example per backend (a SQLite file,
// and each of $SHEDLOCK_TEST_REDIS_URI, $SHEDLOCK_TEST_POSTGRES_URI, $SHEDLOCK_TEST_MYSQL_URI that
// is set; the backends run side by side), tasks firing every second for --seconds. Meanwhile
// GET /health of every process is polled: every answer must come within --answer-ms, also while
// slow_sync's body is suspended on that process. Then SIGTERM to each PID (graceful stop, exit 0)
// and each backend's journal is checked (journal_check.hpp). Prints one RESULT line; exit 0 when
// all held.
//
//   asio_service_check --app PATH --dir DIR [--seconds 12] [--answer-ms 500]
#include "health_probe.hpp"
#include "journal_check.hpp"
#include "processes.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

namespace asio_service_check {
namespace {

using namespace std::chrono_literals;

struct settings {
    std::string app, dir;
    int seconds = 12;
    std::chrono::milliseconds answer_limit{500};
};

settings parse(int argc, char** argv) {
    settings s;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--app") s.app = value;
        else if (key == "--dir") s.dir = value;
        else if (key == "--seconds") s.seconds = std::stoi(value);
        else if (key == "--answer-ms") s.answer_limit = std::chrono::milliseconds{std::stoi(value)};
        else throw std::invalid_argument("unknown option " + key + "; use --app, --dir, --seconds, --answer-ms");
    }
    if (s.app.empty() || s.dir.empty()) throw std::invalid_argument("--app PATH and --dir DIR are required");
    return s;
}

std::vector<backend_run> backends(const settings& s) {
    std::vector<backend_run> runs{{"sqlite", "sqlite:" + s.dir + "/sqlite/locks.db"}};
    const std::pair<const char*, const char*> servers[] = {
        {"redis", "SHEDLOCK_TEST_REDIS_URI"}, {"postgres", "SHEDLOCK_TEST_POSTGRES_URI"}, {"mysql", "SHEDLOCK_TEST_MYSQL_URI"}};
    for (const auto& [name, var] : servers)
        if (const char* uri = std::getenv(var); uri && *uri) runs.push_back({name, uri});
    return runs;
}

struct poll_totals {
    int answers = 0, late_or_failed = 0, while_suspended = 0, over_100ms = 0;
    std::chrono::milliseconds slowest{0};
};

/// Polls every process's /health until `until`, about every 100 ms each.
poll_totals poll_all(const std::vector<backend_run>& runs, std::chrono::steady_clock::time_point until,
                     std::chrono::milliseconds limit, std::vector<std::string>& problems) {
    poll_totals t;
    while (std::chrono::steady_clock::now() < until) {
        for (const auto& run : runs)
            for (const auto& p : run.processes) {
                const auto r = probe_health(p.port, limit * 4);
                ++t.answers;
                t.slowest = std::max(t.slowest, r.took);
                if (r.took > 100ms) ++t.over_100ms;
                if (r.ok && r.body.find("\"slow_sync\":{\"running\":true") != std::string::npos) ++t.while_suspended;
                if (r.ok && r.took <= limit) continue;
                if (++t.late_or_failed <= 5)
                    problems.push_back(run.name + " pid " + std::to_string(p.pid) + ": /health " +
                                       (r.ok ? "answered late" : "failed") + " (" + std::to_string(r.took.count()) +
                                       " ms): " + r.body);
            }
        std::this_thread::sleep_for(100ms);
    }
    return t;
}

std::map<std::string, run_bounds> expected_runs(int seconds) {
    // heartbeat: 1/s (lock_at_least_for 900ms may cost some); slow_sync: >= 3.6 s each;
    // report: 1 per 2 s. Lower bounds are loose (a loaded CI host), upper ones are not.
    return {{"heartbeat", {seconds / 3, seconds + 2}},
            {"slow_sync", {std::max(1, seconds / 8), seconds / 3 + 1}},
            {"report", {seconds / 6, seconds / 2 + 2}}};
}

int check(const settings& s) {
    std::filesystem::remove_all(s.dir);
    auto runs = backends(s);
    const std::string prefix = "asio-check-" + std::to_string(::getpid());
    std::vector<std::string> problems;
    const auto began = std::chrono::steady_clock::now();  // the first processes fire from here
    const auto started = start_clusters(s.app, s.dir, prefix, runs, problems);
    const bool all_listened = problems.empty();  // else only the stop and the start's problems
    poll_totals totals;
    if (all_listened) totals = poll_all(runs, started + std::chrono::seconds{s.seconds}, s.answer_limit, problems);
    const int ran_for = static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - began).count());
    stop_clusters(runs, 15s, problems);
    for (const auto& run : runs) {
        if (!all_listened) break;
        std::map<std::string, int> counts, pids;
        for (auto& p : check_journal(run.dir + "/journal", expected_runs(ran_for), counts, pids))
            problems.push_back(run.name + ": " + p);
        std::cout << run.name << ": heartbeat=" << counts["heartbeat"] << " slow_sync=" << counts["slow_sync"]
                  << " report=" << counts["report"] << " from " << pids.size() << " processes\n";
    }
    if (all_listened && totals.while_suspended == 0)
        problems.push_back("no /health answer came while a slow_sync body was suspended (the test saw none running)");
    for (const auto& p : problems) std::cout << "FAILED: " << p << '\n';
    std::cout << "RESULT: backends=" << runs.size() << " seconds=" << ran_for << " answers=" << totals.answers
              << " while_suspended=" << totals.while_suspended << " over_100ms=" << totals.over_100ms << " slowest_ms=" << totals.slowest.count()
              << " problems=" << problems.size() << std::endl;
    return problems.empty() ? 0 : 1;
}

}  // namespace
}  // namespace asio_service_check

int main(int argc, char** argv) {
    try {
        return asio_service_check::check(asio_service_check::parse(argc, argv));
    } catch (const std::exception& e) {
        std::cerr << "asio_service_check: " << e.what() << '\n';
        return 2;
    }
}
