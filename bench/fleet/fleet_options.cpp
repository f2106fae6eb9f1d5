#include "fleet_options.hpp"

#include <charconv>
#include <cstring>

namespace shedlock::bench::fleet {

namespace {

struct int_flag {
    const char* name;
    int fleet_options::*field;
    int min, max;
};

// Ranges: what one 2-core machine can start (instances x threads connections must fit the
// server's max_connections) and what keeps a firing inside its minimum hold.
constexpr int_flag int_flags[] = {
    {"--instances", &fleet_options::instances, 1, 200}, {"--tasks", &fleet_options::tasks, 1, 100000},
    {"--rounds", &fleet_options::rounds, 1, 50},        {"--threads", &fleet_options::threads, 1, 16},
    {"--hold", &fleet_options::hold_s, 1, 600},          {"--body-ms", &fleet_options::body_ms, 0, 1000},
};

const char* const known_backends[] = {"postgres", "pgbouncer", "redis"};

std::vector<std::string> parse_backends(const std::string& text) {
    std::vector<std::string> list;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        bool known = false;
        for (const char* k : known_backends) known = known || item == k;
        if (!known)
            throw usage_error("--backends: \"" + item + "\" is not a backend; write a comma-separated list of postgres, "
                              "pgbouncer, redis");
        list.push_back(item);
        start = comma + 1;
    }
    return list;
}

}  // namespace

int parse_bounded(const std::string& flag, const std::string& text, int min, int max) {
    long long value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    const std::string range = std::to_string(min) + ".." + std::to_string(max);
    if (text.empty() || ec != std::errc() || ptr != end)
        throw usage_error(flag + ": \"" + text + "\" is not a whole number; write one in " + range);
    if (value < min || value > max)
        throw usage_error(flag + ": " + text + " is out of range; write one in " + range);
    return static_cast<int>(value);
}

fleet_options parse_fleet_options(int argc, char** argv) {
    fleet_options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::size_t eq = arg.find('=');
        const std::string flag = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        if (eq == std::string::npos) throw usage_error("\"" + arg + "\" is not a flag; write --name=value (--help lists them)");
        bool matched = false;
        for (const auto& f : int_flags)
            if (flag == f.name) options.*f.field = parse_bounded(flag, value, f.min, f.max), matched = true;
        if (flag == "--backends") options.backends = parse_backends(value), matched = true;
        if (!matched) throw usage_error("unknown flag \"" + flag + "\" (--help lists them)");
    }
    return options;
}

std::string fleet_usage() {
    std::string text = "usage: fleet [--flag=value ...]   (servers from $SHEDLOCK_TEST_POSTGRES_URI,\n"
                       "       $SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI, $SHEDLOCK_TEST_REDIS_URI)\n";
    const fleet_options defaults;
    for (const auto& f : int_flags)
        text += "  " + std::string(f.name) + "=" + std::to_string(f.min) + ".." + std::to_string(f.max) +
                "  (default " + std::to_string(defaults.*f.field) + ")\n";
    text += "  --backends=postgres,pgbouncer,redis  (default all three)\n";
    return text;
}

}  // namespace shedlock::bench::fleet
