// chaos_resource: the command the chaos workers run under `shedlock run`. It is the critical
// section: begin a fenced write with $SHEDLOCK_FENCING_TOKEN, hold it a while (so overlapping
// holders are visible), commit. Every step goes to the run's journal (see fenced_resource.hpp).
//
//   chaos_resource DIR ATTEMPT HOLD_MS [CLOCK_FILE OFFSET]
//
// With CLOCK_FILE, OFFSET (a libfaketime offset such as "+20s") is written to it right after
// begin: the `shedlock run` that started this command reads its clock from that file, so its
// clock jumps while it holds the lock.
//
// Exit status: 0 the write was accepted, 3 the resource rejected a stale token, 4 bad usage or
// no token in the environment.
#include "chaos_clock.hpp"
#include "fenced_resource.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

constexpr int exit_rejected = 3;
constexpr int exit_usage = 4;

std::int64_t token_from_env() {
    const char* text = std::getenv("SHEDLOCK_FENCING_TOKEN");
    if (!text || !*text) return -1;
    return std::stoll(text);
}

// Written whole under a temporary name, then renamed: a reader never sees half an offset.
void jump_clock(const std::string& file, const std::string& offset) {
    const std::string tmp = file + ".tmp";
    std::ofstream(tmp, std::ios::trunc) << offset << '\n';
    std::rename(tmp.c_str(), file.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    using namespace shedlock::chaos;
    const char* name = std::getenv("SHEDLOCK_LOCK_NAME");
    if ((argc != 4 && argc != 6) || !name) {
        std::fprintf(stderr, "usage: SHEDLOCK_LOCK_NAME=.. chaos_resource DIR ATTEMPT HOLD_MS [CLOCK_FILE OFFSET]\n");
        return exit_usage;
    }
    fenced_resource resource(argv[1]);
    const std::int64_t attempt = std::stoll(argv[2]);
    const std::int64_t token = token_from_env();
    const bool began = resource.begin(name, attempt, token);
    if (argc == 6) jump_clock(argv[4], argv[5]);
    sleep_us(std::stoll(argv[3]) * 1000);
    const bool committed = resource.commit(name, attempt, token, began);
    if (token < 0) return exit_usage;
    return committed ? 0 : exit_rejected;
}
