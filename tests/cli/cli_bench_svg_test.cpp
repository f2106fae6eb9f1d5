// End-to-end: `shedlock bench --svg` rendered by headless Chromium. The picture is kept under the
// build directory (SHEDLOCK_SVG_OUT_DIR/bench.png) for a person to look at; the test measures every
// text element's box in the browser's own layout and fails when two overlap or one leaves the picture.
#include "cli_backends.hpp"
#include "cli_process.hpp"
#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

const std::string out_dir = SHEDLOCK_SVG_OUT_DIR;

/// Runs a shell command; its standard output.
std::string output_of(const std::string& command) {
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
        ::pclose(pipe);
    }
    return out;
}

std::string chromium(const std::string& arguments) {
    // --no-sandbox: tests may run as root (containers, CI); a user-data dir of its own per run.
    return output_of("timeout 120 " SHEDLOCK_CHROMIUM " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                     out_dir + "/chromium-profile " + arguments + " 2>/dev/null");
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

/// The number after `name="` in the SVG's first element.
int svg_attribute(const std::string& svg, const std::string& name) {
    const auto at = svg.find(name + "=\"");
    return at == std::string::npos ? -1 : std::stoi(svg.substr(at + name.size() + 2));
}

/// The SVG inline in a page whose script measures each <text> box (getBBox: the laid-out glyphs)
/// and lists every overlapping pair, every box outside the picture, and every empty one.
const char* const measuring_script = R"(<script>
const svg = document.querySelector('svg');
const width = +svg.getAttribute('width'), height = +svg.getAttribute('height');
const boxes = [...svg.querySelectorAll('text')].map(t => ({b: t.getBBox(), s: t.textContent}));
const problems = [];
boxes.forEach(({b, s}, i) => {
  if (b.width <= 0 || b.height <= 0) problems.push('EMPTY ' + s);
  if (b.x < 0 || b.y < 0 || b.x + b.width > width || b.y + b.height > height) problems.push('OUTSIDE ' + s);
  for (const o of boxes.slice(i + 1))
    if (b.x < o.b.x + o.b.width && o.b.x < b.x + b.width && b.y < o.b.y + o.b.height && o.b.y < b.y + b.height)
      problems.push('OVERLAP "' + s + '" "' + o.s + '"');
});
const result = document.createElement('pre');
result.id = 'result';
result.textContent = 'texts=' + boxes.length + '\n' + problems.join('\n') + '\nproblems=' + problems.length;
document.body.appendChild(result);
</script>)";

/// Width and height from a PNG's IHDR chunk; {0, 0} when the file is not a PNG.
std::pair<unsigned, unsigned> png_size(const std::string& png) {
    if (png.size() < 24 || png.compare(1, 3, "PNG") != 0) return {0, 0};
    auto be32 = [&](std::size_t at) {
        unsigned v = 0;
        for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(png[at + i]);
        return v;
    };
    return {be32(16), be32(20)};
}

}  // namespace

TEST_CASE("cli bench --svg: Chromium renders it with no text overlapping or outside the picture", "[cli]") {
    ::mkdir(out_dir.c_str(), 0755);
    const std::string svg_path = out_dir + "/bench.svg";
    std::remove(svg_path.c_str());
    // memory: next to the real backends puts latencies decades apart (the log scale's test).
    std::vector<std::string> args{"bench", "--duration", "200ms", "--contenders", "2", "--svg", svg_path, "-p", "memory:"};
    for (const auto& uri : backend_uris("cli_svg")) args.insert(args.end(), {"-p", uri});
    const auto bench = run_cli(args);
    INFO(bench.err);
    REQUIRE(bench.status == 0);
    const std::string svg = read_file(svg_path);
    REQUIRE_THAT(svg, Contains("<svg") && Contains("</svg>"));
    CHECK_THAT(svg, Contains(">memory<") && Contains(">sqlite:") && !Contains("shedlock-test-pw"));
    const int width = svg_attribute(svg, "width"), height = svg_attribute(svg, "height");
    REQUIRE(width > 0);
    REQUIRE(height > 0);

    const std::string page = out_dir + "/bench-measure.html";
    write_file(page, "<!DOCTYPE html><html><body style=\"margin:0\">" + svg.substr(svg.find("<svg")) + measuring_script +
                         "</body></html>\n");
    const std::string dom = chromium("--dump-dom file://" + page);
    INFO("chromium: " SHEDLOCK_CHROMIUM " (scripts/install-deps.sh installs it)");
    REQUIRE_THAT(dom, Contains("problems="));
    const std::string result = dom.substr(dom.rfind("texts="));  // the result element, after the script
    INFO(result);
    CHECK(std::stoi(result.substr(6)) >= 20);  // titles, labels, values, ticks: the panels are there
    CHECK_THAT(result, Contains("problems=0"));

    const std::string png_path = out_dir + "/bench.png";
    std::remove(png_path.c_str());
    chromium("--screenshot=" + png_path + " --window-size=" + std::to_string(width) + "," + std::to_string(height) +
             " file://" + svg_path);
    const std::string png = read_file(png_path);
    CHECK(png.size() > 10000);  // a blank picture compresses to a few hundred bytes
    CHECK(png_size(png) == std::pair<unsigned, unsigned>(static_cast<unsigned>(width), static_cast<unsigned>(height)));
}

TEST_CASE("cli bench: the progress line is redrawn only on a terminal", "[cli]") {
    // run_cli's stderr is a pipe, as under cron or in a CI log: no carriage returns, no ESC[K.
    const auto bench = run_cli({"bench", "--duration", "50ms", "--contenders", "2", "-p", "memory:"});
    INFO(bench.err);
    REQUIRE(bench.status == 0);
    CHECK_THAT(bench.err, Contains("single-threaded cycles") && !Contains("\r") && !Contains("\033"));
}

TEST_CASE("cli bench --svg: every panel is on a log scale", "[cli]") {
    // memory: beside SQLite: throughput decades apart, where a linear panel drew SQLite's bar 1 px long.
    const std::string svg_path = out_dir + "-scales.svg";
    const auto bench = run_cli({"bench", "--duration", "100ms", "--contenders", "2", "--svg", svg_path, "-p", "memory:",
                                "-p", "sqlite:" + scratch_dir() + "/svg-scales.db?create_schema=true"});
    INFO(bench.err);
    REQUIRE(bench.status == 0);
    const std::string svg = read_file(svg_path);
    std::size_t panels = 0, log_axes = 0;
    for (auto at = svg.find("font-weight=\"bold\""); at != std::string::npos; at = svg.find("font-weight=\"bold\"", at + 1)) ++panels;
    for (auto at = svg.find(", log scale<"); at != std::string::npos; at = svg.find(", log scale<", at + 1)) ++log_axes;
    CHECK(panels == 5);
    CHECK(log_axes == panels);
    // Every bar with a value is long enough to see and compare (chart width 440 px).
    const std::regex bar(R"re(<rect [^>]*width="([0-9.]+)" height="12\.0"[^>]*><title>([^<]*)</title>)re");
    std::size_t bars = 0;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it, ++bars) {
        INFO((*it)[2].str());
        CHECK(std::stod((*it)[1].str()) >= 20);
    }
    CHECK(bars == 2 * (3 + 3 * 2));  // two providers: three throughputs, two panels of three quantiles
}
