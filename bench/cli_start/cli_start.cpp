// bench_cli_start: what `shedlock run -p URI -- true` costs over the raw floor (raw_run: the same
// connect + acquire + fork/exec + wait + release written by hand against that backend's client
// library only), on every backend the environment names, and the peak RSS of both. Rounds interleave the two
// programs (alternating which goes first) so drift and load hit both alike; figures are medians
// with [min-max] ranges over the rounds, never the best round. Beside the wall time, the CPU time
// (user + system, the program and the command it waited for): on a loaded machine the wall time
// of a ~20 ms program varies by tens of ms, its CPU time much less.
//
//   bench_cli_start [ROUNDS]   (default 15; SQLite always, PostgreSQL / MySQL / Redis when
//                               SHEDLOCK_TEST_POSTGRES_URI / _MYSQL_URI / _REDIS_URI are set;
//                               SHEDLOCK_BENCH_CLI=PATH measures another shedlock binary)
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct sample {
    double ms = 0;
    double cpu_ms = 0;
    double rss_mb = 0;
};

double ms_of(const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; }

/// Runs argv to completion, its output to /dev/null; its wall time (spawn to reaped), CPU time
/// and peak RSS.
sample measure(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&quiet);
    if (spawned != 0) throw std::runtime_error("cannot start " + args[0]);
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    const auto end = std::chrono::steady_clock::now();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(args[0] + " " + args[1] + " failed with status " + std::to_string(WEXITSTATUS(status)));
    return {std::chrono::duration<double, std::milli>(end - start).count(), ms_of(usage.ru_utime) + ms_of(usage.ru_stime),
            static_cast<double>(usage.ru_maxrss) / 1024.0};
}

std::string cli_path() {
    const char* other = std::getenv("SHEDLOCK_BENCH_CLI");
    return other != nullptr ? other : SHEDLOCK_CLI_PATH;
}

struct spread {
    double median = 0, min = 0, max = 0;
};

spread of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return {median, v.front(), v.back()};
}

std::string text(const spread& s, const char* format) {
    char buf[96];
    std::snprintf(buf, sizeof buf, format, s.median, s.min, s.max);
    return buf;
}

struct backend {
    std::string label, uri;
    std::vector<double> cli_ms, raw_ms, added_ms, cli_rss, raw_rss;
    std::vector<double> cli_cpu, raw_cpu, added_cpu;
};

std::vector<backend> backends(const std::string& scratch) {
    std::vector<backend> list{{"sqlite", "sqlite:" + scratch + "/bench.db", {}, {}, {}, {}, {}, {}, {}, {}}};
    const std::pair<const char*, const char*> servers[] = {{"postgres", "SHEDLOCK_TEST_POSTGRES_URI"},
                                                           {"mysql", "SHEDLOCK_TEST_MYSQL_URI"},
                                                           {"redis", "SHEDLOCK_TEST_REDIS_URI"}};
    for (const auto& [label, env] : servers) {
        if (const char* uri = std::getenv(env)) list.push_back({label, uri, {}, {}, {}, {}, {}, {}, {}, {}});
        else std::printf("%s: skipped (%s is not set)\n", label, env);
    }
    return list;
}

void round(backend& b, bool cli_first) {
    const std::vector<std::string> cli{cli_path(), "run", "-p", b.uri, "-n", "bench-cli", "--at-most", "60s", "--", "true"};
    const std::vector<std::string> raw{RAW_RUN_PREFIX + b.label, b.uri, "bench-raw", "--", "true"};
    sample c, r;
    if (cli_first) {
        c = measure(cli);
        r = measure(raw);
    } else {
        r = measure(raw);
        c = measure(cli);
    }
    b.cli_ms.push_back(c.ms);
    b.raw_ms.push_back(r.ms);
    b.added_ms.push_back(c.ms - r.ms);
    b.cli_cpu.push_back(c.cpu_ms);
    b.raw_cpu.push_back(r.cpu_ms);
    b.added_cpu.push_back(c.cpu_ms - r.cpu_ms);
    b.cli_rss.push_back(c.rss_mb);
    b.raw_rss.push_back(r.rss_mb);
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
    if (rounds < 1) {
        std::fprintf(stderr, "usage: bench_cli_start [ROUNDS >= 1]\n");
        return 64;
    }
    char scratch[] = "/tmp/bench_cli_start.XXXXXX";
    if (::mkdtemp(scratch) == nullptr) return 1;
    try {
        auto list = backends(scratch);
        for (auto& b : list) measure({cli_path(), "schema", "apply", "-p", b.uri});
        for (auto& b : list) {  // warm-up: page cache, server-side connection set-up
            round(b, true);
            b = backend{b.label, b.uri, {}, {}, {}, {}, {}, {}, {}, {}};
        }
        std::vector<double> help_rss;
        for (int i = 0; i < rounds; ++i) {
            for (auto& b : list) round(b, i % 2 == 0);
            help_rss.push_back(measure({cli_path(), "--help"}).rss_mb);
        }
        std::printf("%d interleaved rounds; median [min-max]\n", rounds);
        std::printf("%-11s %-22s %-22s %-24s %-22s %s\n", "backend", "shedlock run (ms)", "raw floor (ms)",
                    "added per run (ms)", "shedlock RSS (MB)", "raw RSS (MB)");
        for (const auto& b : list)
            std::printf("%-11s %-22s %-22s %-24s %-22s %s\n", b.label.c_str(), text(of(b.cli_ms), "%.1f [%.1f-%.1f]").c_str(),
                        text(of(b.raw_ms), "%.1f [%.1f-%.1f]").c_str(), text(of(b.added_ms), "%+.1f [%+.1f..%+.1f]").c_str(),
                        text(of(b.cli_rss), "%.1f [%.1f-%.1f]").c_str(), text(of(b.raw_rss), "%.1f [%.1f-%.1f]").c_str());
        std::printf("%-11s %-22s %-22s %s\n", "CPU time", "shedlock run (ms)", "raw floor (ms)", "added per run (ms)");
        for (const auto& b : list)
            std::printf("%-11s %-22s %-22s %s\n", b.label.c_str(), text(of(b.cli_cpu), "%.1f [%.1f-%.1f]").c_str(),
                        text(of(b.raw_cpu), "%.1f [%.1f-%.1f]").c_str(), text(of(b.added_cpu), "%+.1f [%+.1f..%+.1f]").c_str());
        std::printf("shedlock --help peak RSS: %s MB\n", text(of(help_rss), "%.1f [%.1f-%.1f]").c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_cli_start: %s\n", e.what());
        return 1;
    }
    return 0;
}
