// chaos_resource: the command the chaos workers run under `shedlock run`. It is the critical
// section: begin a fenced write with $SHEDLOCK_FENCING_TOKEN, hold it a while (so overlapping
// holders are visible), commit. Every step goes to the run's journal (see fenced_resource.hpp).
//
//   chaos_resource DIR ATTEMPT HOLD_MS [CLOCK_FILE OFFSET | --delay-release REQUEST_FILE]
//
// With CLOCK_FILE, OFFSET (a libfaketime offset such as "+20s") is written to it right after
// begin: the `shedlock run` that started this command reads its clock from that file, so its
// clock jumps while it holds the lock.
// With --delay-release, after the commit it creates REQUEST_FILE and waits (at most 1 s) until
// the fault injector has removed it: by then the network to the server is held, and the release
// that `shedlock run` sends once this command exits arrives late.
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

// Bounded: a request nobody serves (the injector busy with a restart) costs 1 s, then the
// release simply goes out undelayed.
void request_release_delay(const std::string& file) {
    if (FILE* f = std::fopen(file.c_str(), "w")) std::fclose(f);
    for (int waited_ms = 0; waited_ms < 1000 && std::ifstream(file).good(); ++waited_ms) shedlock::chaos::sleep_us(1000);
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
    const bool delay_release = argc == 6 && std::string(argv[4]) == "--delay-release";
    const bool began = resource.begin(name, attempt, token);
    if (argc == 6 && !delay_release) jump_clock(argv[4], argv[5]);
    sleep_us(std::stoll(argv[3]) * 1000);
    const bool committed = resource.commit(name, attempt, token, began);
    if (delay_release) request_release_delay(argv[5]);
    if (token < 0) return exit_usage;
    return committed ? 0 : exit_rejected;
}
