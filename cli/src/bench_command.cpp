// shedlock bench: compare lock providers on this machine's network and hardware.
#include "bench_command.hpp"

#include "bench_report.hpp"
#include "bench_runner.hpp"
#include "exit_codes.hpp"

#include <shedlock/duration.hpp>

#include <unistd.h>

#include <fstream>
#include <iostream>

namespace shedlock::cli {

int bench_command(const bench_options& o) {
    bench_plan plan;
    plan.phase = parse_duration(o.duration, "--duration");
    if (plan.phase.count() <= 0) throw configuration_error("--duration must be positive, e.g. 2s");
    plan.contenders = o.contenders;
    // On a terminal one status line, redrawn in place; elsewhere (a pipe, a log file, cron's mail)
    // one plain line per phase, since \r and ESC[K would only leave control bytes in the text.
    const bool redraw = ::isatty(STDERR_FILENO) == 1;
    std::vector<provider_figures> figures;
    for (std::size_t i = 0; i < o.providers.size(); ++i) {
        const std::string step = "[" + std::to_string(i + 1) + "/" + std::to_string(o.providers.size()) + "] ";
        plan.progress = [&](const std::string& phase) {
            std::cerr << (redraw ? "\r\033[K" : "") << step << phase << (redraw ? " ..." : " ...\n") << std::flush;
        };
        figures.push_back(bench_provider(o.providers[i], plan));
    }
    if (redraw) std::cerr << "\r\033[K" << std::flush;
    std::cout << (o.json ? bench_json(figures) : bench_table(figures));
    if (!o.svg.empty()) {
        std::ofstream out(o.svg);
        if (!out) throw configuration_error("--svg " + o.svg + ": cannot write that file; check the directory");
        out << bench_svg(figures);
    }
    return exit_ok;
}

}  // namespace shedlock::cli
