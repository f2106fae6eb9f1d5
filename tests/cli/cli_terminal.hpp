#pragma once
// Runs the built `shedlock` binary on a pseudo-terminal, as from an interactive shell: its own
// session with the terminal as controlling terminal, in the foreground process group.

#include <string>
#include <vector>

namespace shedlock::test {

struct terminal_result {
    bool finished = false;  ///< false: still running at the deadline (then killed)
    int status = -1;        ///< exit status, or 128 + signal
    std::string screen;     ///< everything written to the terminal
};

/// Starts `shedlock args...` on a new pty, types `input`, and collects output until it exits or
/// `seconds` pass.
terminal_result run_cli_on_terminal(const std::vector<std::string>& args, const std::string& input, double seconds);

}  // namespace shedlock::test
