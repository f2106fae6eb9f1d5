#pragma once
// The terminal's foreground process group while a command runs. A command in a process group
// of its own that reads the terminal from the background is stopped by SIGTTIN; so when the
// wrapper itself is in the foreground, the command's group becomes the foreground for its run.

#include <sys/types.h>

namespace shedlock::cli {

class foreground_terminal {
public:
    /// Active only when `wanted` and standard input is a terminal whose foreground group is ours.
    explicit foreground_terminal(bool wanted);
    foreground_terminal(const foreground_terminal&) = delete;
    foreground_terminal& operator=(const foreground_terminal&) = delete;
    ~foreground_terminal() { take_back(); }

    bool active() const noexcept { return active_; }
    /// Makes the command's group the foreground group (the child does the same: no race).
    void give_to(pid_t group);
    /// Makes our own group the foreground again (idempotent).
    void take_back();
    /// The command was stopped (Ctrl-Z): take the terminal back and stop ourselves, so the
    /// shell regains control; once continued (fg), give it back and continue the command.
    void suspend_with(pid_t group);

private:
    bool active_ = false;
    bool given_ = false;
};

}  // namespace shedlock::cli
