#include "log.hpp"

#include "output.hpp"

#include <shedlock/error.hpp>

#include <atomic>
#include <cstdio>

namespace shedlock::cli {
namespace {

std::atomic<log_level> threshold{log_level::info};

const char* label(log_level level) {
    switch (level) {
        case log_level::debug: return "debug";
        case log_level::info: return "info";
        case log_level::warn: return "warn";
        case log_level::error: return "error";
        case log_level::off: return "off";
    }
    return "info";
}

}  // namespace

log_level parse_log_level(const std::string& text) {
    for (auto l : {log_level::debug, log_level::info, log_level::warn, log_level::error, log_level::off})
        if (text == label(l)) return l;
    throw configuration_error("log level \"" + text + "\" is unknown; use debug, info, warn, error or off");
}

void set_log_level(log_level level) { threshold.store(level); }

log_level current_log_level() { return threshold.load(); }

void log(log_level level, const std::string& message) {
    if (level < threshold.load() || level == log_level::off) return;
    // One line whatever the message holds: a server's error reply with a line break or an escape
    // sequence must not forge a log line or drive the terminal (adversarial pass 32).
    std::fprintf(stderr, "shedlock %s: %s\n", label(level), one_line(message).c_str());
}

}  // namespace shedlock::cli
