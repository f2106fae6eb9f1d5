#pragma once
// One attempt of the async lane (docs/chaos.md, "The async lane"): what `shedlock run` does, but
// through shedlock::asio on ONE io_context thread: async_try_lock, the command watched through a
// pidfd, async_extend every at_most / 2 with --keep-alive (each logged to the journal, so the
// analysis checks them for stale extensions), async_unlock. Same statuses and messages as
// `shedlock run` (docs/crontab.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::chaos {

struct async_attempt_args {
    std::string journal, provider, name, at_most, at_least = "PT0S";
    std::int64_t attempt = 0;
    bool keep_alive = false;
    std::vector<std::string> command;
};

/// `run --journal FILE --attempt N -p URI -n NAME --at-most D [--at-least D] [--keep-alive] --
/// command...`; empty on a bad command line.
std::optional<async_attempt_args> parse_async_attempt(int argc, char** argv);

/// Runs the attempt; its exit status (0..255). Throws on a configuration error.
int run_async_attempt(const async_attempt_args& args);

}  // namespace shedlock::chaos
