#pragma once
// A command found a required value missing after the command line was parsed (it can also come
// from the environment or a config file). main.cpp reports it as the command-line parser reports
// its own missing options ("<what> is required", exit 64), so the command files need no parser.

#include <stdexcept>
#include <string>

namespace shedlock::cli {

class missing_option : public std::runtime_error {
public:
    /// `what` names the option and where else it may come from, e.g. "--provider (or SHEDLOCK_PROVIDER)".
    explicit missing_option(const std::string& what) : std::runtime_error(what) {}
};

/// Options that do not go together (e.g. --claim-for without an idempotency key), found after
/// the config file was read; main.cpp reports it as a command-line error (exit 64).
class usage_error : public std::runtime_error {
public:
    explicit usage_error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace shedlock::cli
