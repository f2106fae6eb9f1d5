#include "journal_check.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace asio_service_check {
namespace {

struct journal_line {
    std::string task, scheduled_at, pid, token, text;
    long long begin_ms = 0, end_ms = 0;
};

std::vector<journal_line> read_lines(const std::string& path, std::vector<std::string>& problems) {
    std::vector<journal_line> lines;
    std::ifstream in(path);
    if (!in) problems.push_back("journal " + path + " cannot be read (no process ran a task?)");
    std::string text;
    while (std::getline(in, text)) {
        journal_line l;
        l.text = text;
        std::istringstream fields(text);
        if (!(fields >> l.task >> l.scheduled_at >> l.pid >> l.token >> l.begin_ms >> l.end_ms))
            problems.push_back("malformed journal line \"" + text + "\"");
        else
            lines.push_back(l);
    }
    return lines;
}

void check_duplicates(const std::vector<journal_line>& lines, std::vector<std::string>& problems) {
    std::map<std::pair<std::string, std::string>, std::string> seen;
    for (const auto& l : lines) {
        const auto [at, fresh] = seen.emplace(std::make_pair(l.task, l.scheduled_at), l.text);
        if (!fresh) problems.push_back("DUPLICATE firing: \"" + at->second + "\" and \"" + l.text + "\"");
    }
}

/// Runs of one task, ordered by start: each starts after the previous ended, with a larger token.
void check_order(std::vector<journal_line> runs, std::vector<std::string>& problems) {
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.begin_ms < b.begin_ms; });
    for (std::size_t i = 1; i < runs.size(); ++i) {
        const auto& before = runs[i - 1];
        const auto& after = runs[i];
        if (after.begin_ms < before.end_ms)
            problems.push_back("OVERLAP: \"" + after.text + "\" began before \"" + before.text + "\" ended");
        if (before.token != "-" && after.token != "-" && std::stoll(after.token) <= std::stoll(before.token))
            problems.push_back("fencing token not increasing: \"" + before.text + "\" then \"" + after.text + "\"");
    }
}

}  // namespace

std::vector<std::string> check_journal(const std::string& path, const std::map<std::string, run_bounds>& bounds,
                                       std::map<std::string, int>& counts, std::map<std::string, int>& pids) {
    std::vector<std::string> problems;
    const auto lines = read_lines(path, problems);
    check_duplicates(lines, problems);
    std::map<std::string, std::vector<journal_line>> by_task;
    for (const auto& l : lines) {
        by_task[l.task].push_back(l);
        ++pids[l.pid];
    }
    for (const auto& [task, runs] : by_task) check_order(runs, problems);
    for (const auto& [task, range] : bounds) {
        const int n = static_cast<int>(by_task[task].size());
        counts[task] = n;
        if (n < range.at_least || n > range.at_most)
            problems.push_back(task + " ran " + std::to_string(n) + " times, expected " +
                               std::to_string(range.at_least) + ".." + std::to_string(range.at_most));
    }
    return problems;
}

}  // namespace asio_service_check
