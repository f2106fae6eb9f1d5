// shedlock bench: compare lock providers on this machine's network and hardware.
#include "bench_report.hpp"
#include "bench_runner.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

#include <shedlock/duration.hpp>

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

namespace shedlock::cli {
namespace {

struct bench_options {
    std::vector<std::string> providers;
    std::string duration = "2s";
    int contenders = 4;
    bool json = false;
    std::string svg;
};

int bench(const bench_options& o) {
    bench_plan plan;
    plan.phase = parse_duration(o.duration, "--duration");
    if (plan.phase.count() <= 0) throw configuration_error("--duration must be positive, e.g. 2s");
    plan.contenders = o.contenders;
    std::vector<provider_figures> figures;
    for (std::size_t i = 0; i < o.providers.size(); ++i) {
        const std::string step = "[" + std::to_string(i + 1) + "/" + std::to_string(o.providers.size()) + "] ";
        plan.progress = [&](const std::string& phase) {
            std::cerr << "\r\033[K" << step << phase << " ..." << std::flush;
        };
        figures.push_back(bench_provider(o.providers[i], plan));
    }
    std::cerr << "\r\033[K" << std::flush;
    std::cout << (o.json ? bench_json(figures) : bench_table(figures));
    if (!o.svg.empty()) {
        std::ofstream out(o.svg);
        if (!out) throw configuration_error("--svg " + o.svg + ": cannot write that file; check the directory");
        out << bench_svg(figures);
    }
    return exit_ok;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<bench_options>();
    auto* cmd = app.add_subcommand("bench", "Compare providers: cycles/s, latency, contention, fairness");
    cmd->add_option("--provider,-p", o->providers, "Lock backend URI; repeat to compare several")->required();
    cmd->add_option("--duration", o->duration, "Length of each of the three phases (default 2s)");
    cmd->add_option("--contenders", o->contenders, "Threads, each with its own connection (default 4)")
        ->check(CLI::Range(1, 64));
    cmd->add_flag("--json", o->json, "JSON for scripts");
    cmd->add_option("--svg", o->svg, "Also write a bar chart to this SVG file");
    cmd->footer("\nLock names use a temporary prefix; every record the run created is deleted at the end.\n"
                "Example:\n  shedlock bench -p sqlite:/tmp/b.db?create_schema=true -p 'postgresql://app@db/ops' --svg bench.svg");
    cmd->callback([o, &exit_status] { exit_status = bench(*o); });
}

}  // namespace shedlock::cli
