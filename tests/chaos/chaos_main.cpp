// chaos_suite: worker processes loop `shedlock run` around a fenced write while faults are
// injected; then the journal is analysed. See docs/chaos.md.
#include "analysis.hpp"
#include "chaos_clock.hpp"
#include "chaos_run.hpp"
#include "fault_coverage.hpp"
#include "options.hpp"
#include "report.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace shedlock::chaos;

constexpr int exit_violations = 1;
constexpr int exit_setup = 2;

/// Fills what the command line left open; true when the work dir was made here (and may go).
bool fill_defaults(run_options& o) {
    if (o.cli_path.empty()) o.cli_path = SHEDLOCK_CHAOS_CLI;
    if (o.resource_path.empty()) o.resource_path = SHEDLOCK_CHAOS_RESOURCE;
    if (o.planted_path.empty()) o.planted_path = SHEDLOCK_CHAOS_PLANTED;
#ifdef SHEDLOCK_CHAOS_ASYNC
    if (o.async_path.empty()) o.async_path = SHEDLOCK_CHAOS_ASYNC;
#endif
    if (o.async_api && o.async_path.empty())
        throw std::runtime_error("--async needs chaos_async_worker, which this build lacks (configure with "
                                 "-DSHEDLOCK_BUILD_ASIO=ON) or --async-worker PATH");
    if (o.seed == 0) o.seed = static_cast<std::uint64_t>(now_us());
    const bool made_here = o.work_dir.empty();
    if (made_here) {
        const char* base = std::getenv("SHEDLOCK_TEST_TMPDIR");
        std::filesystem::path dir = base && *base ? base : "/tmp";
        std::filesystem::create_directories(dir);
        std::string pattern = (dir / ("chaos-" + o.backend + "-XXXXXX")).string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a work dir under " + dir.string());
        o.work_dir = pattern;
    }
    std::filesystem::create_directories(o.work_dir);
    o.work_dir = std::filesystem::absolute(o.work_dir).string();
    // A journal left by an earlier run in a given dir would mix with this one.
    for (const auto& entry : std::filesystem::directory_iterator(o.work_dir))
        if (entry.path().filename() == "journal.log" || entry.path().filename().string().starts_with("state-"))
            std::filesystem::remove(entry.path());
    return made_here;
}

std::string fault_list(const run_options& o) {
    std::string text;
    for (const auto& f : o.faults) text += (text.empty() ? "" : ",") + f;
    return text.empty() ? "none" : text;
}

/// A planted-bug test passes when every expected kind was found; a normal run when none was.
int verdict(const run_options& o, const std::vector<lane_result>& lanes) {
    std::map<std::string, int> found;
    for (const auto& lane : lanes)
        for (const auto& [kind, n] : lane.violations) found[kind] += n;
    if (o.expect.empty()) return found.empty() ? 0 : exit_violations;
    int missing = 0;
    for (const auto& kind : o.expect)
        if (!found.count(kind)) {
            std::printf("chaos: expected %s violations, found none: the suite missed the planted bug\n", kind.c_str());
            ++missing;
        }
    if (!missing) std::printf("chaos: planted bug %s detected as expected\n", o.planted.c_str());
    return missing ? exit_violations : 0;
}

/// A run in which a configured fault kind never fired tested less than it claims: it fails.
int coverage_verdict(const run_options& o, const run_outcome& outcome) {
    const auto unfired = unfired_fault_kinds(applicable_fault_kinds(o.faults, outcome.lanes), outcome.faults,
                                             outcome.attempts);
    for (const auto& kind : unfired)
        std::printf("chaos: fault kind %s was configured but never injected: the run did not test it "
                    "(run longer, or leave it out of --faults)\n", kind.c_str());
    return unfired.empty() ? 0 : exit_violations;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--print-header") {  // for tests/chaos/run_chaos.sh
        std::fputs(table_header().c_str(), stdout);
        return 0;
    }
    run_options options = parse_options(argc, argv);
    run_outcome outcome;
    bool own_work_dir = false;
    try {
        own_work_dir = fill_defaults(options);
        std::printf("chaos: backend %s, %d s, %d workers, at-most %lld ms, seed %llu, faults %s%s\nchaos: work dir %s\n",
                    options.backend.c_str(), options.seconds, options.workers,
                    static_cast<long long>(options.at_most.count()), static_cast<unsigned long long>(options.seed),
                    fault_list(options).c_str(),
                    options.async_api ? ", async API" : options.planted.empty() ? "" : (", planted " + options.planted).c_str(),
                    options.work_dir.c_str());
        std::fflush(stdout);
        outcome = run_chaos(options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "chaos: setup failed: %s\n", e.what());
        return exit_setup;
    }
    const auto lanes = analyze({options, outcome.lanes, outcome.attempts, outcome.journal, outcome.faults, outcome.start_us,
                               outcome.end_us});
    std::string table = table_header();
    for (const auto& lane : lanes) table += table_row(backend_label(options), lane);
    std::printf("\n%s\n%s", table.c_str(), violation_details(backend_label(options), lanes).c_str());
    if (!options.table_out.empty()) {
        std::ofstream out(options.table_out, std::ios::app);
        for (const auto& lane : lanes) out << table_row(backend_label(options), lane);
    }
    if (!outcome.error.empty()) {
        std::fprintf(stderr, "chaos: the run failed: %s\n", outcome.error.c_str());
        return exit_setup;
    }
    const int found = verdict(options, lanes);
    const int status = found != 0 ? found : coverage_verdict(options, outcome);
    if (status == 0 && own_work_dir) {  // a passing run's files only fill the disk
        std::error_code ignored;
        std::filesystem::remove_all(options.work_dir, ignored);
    } else {
        std::printf("chaos: journal and logs kept in %s\n", options.work_dir.c_str());
    }
    return status;
}
