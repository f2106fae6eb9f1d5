#pragma once
// The child side of running a command: everything prepared before fork (the child of a
// multi-threaded process may only call async-signal-safe functions), then a clean exec.

#include <string>
#include <utility>
#include <vector>

namespace shedlock::cli {

/// What the command is started with.
struct child_command {
    std::vector<std::string> argv;                              ///< argv[0] is searched in PATH
    std::vector<std::pair<std::string, std::string>> extra_env; ///< added (replacing same names)
    /// Removed from the inherited environment: the tool's own configuration, which may hold a
    /// password (SHEDLOCK_PROVIDER is always removed).
    std::vector<std::string> removed_env;
};

/// argv and envp as the exec call wants them; owns the strings the pointers point at.
class exec_image {
public:
    explicit exec_image(const child_command& command);
    exec_image(const exec_image&) = delete;
    exec_image& operator=(const exec_image&) = delete;

    /// In the forked child: a new process group (taking the terminal when `take_terminal`),
    /// default signal dispositions and an empty mask, only descriptors 0-2 kept across exec,
    /// then exec. Reports errno through `report_fd` (close-on-exec) when exec fails.
    [[noreturn]] void exec_in_child(int report_fd, bool take_terminal) const;

private:
    std::vector<std::string> strings_;
    std::vector<char*> argv_;
    std::vector<char*> envp_;
};

}  // namespace shedlock::cli
