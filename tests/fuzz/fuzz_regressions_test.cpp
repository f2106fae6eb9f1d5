// Replays every saved input of every fuzz target built into this tree: the seeds in
// corpus/<target>/ and the inputs of fixed crashes in regressions/<target>/. Each goes through
// the same check the fuzz program runs, so a crash the fuzzer once found fails here, with the
// normal compiler and no fuzzing engine.
#include "fuzz_check.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace fs = std::filesystem;
using shedlock::fuzz::registered_checks;

namespace {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The files of `dir` in name order (a stable report), none when it does not exist.
std::set<fs::path> inputs_in(const fs::path& dir) {
    std::set<fs::path> files;
    if (!fs::is_directory(dir)) return files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file()) files.insert(entry.path());
    return files;
}

}  // namespace

TEST_CASE("every saved fuzz input passes its target's check", "[fuzz]") {
    const fs::path root = SHEDLOCK_FUZZ_DIR;
    REQUIRE_FALSE(registered_checks().empty());
    for (const auto& [target, check] : registered_checks()) {
        if (check.setup) check.setup();
        std::size_t replayed = 0;
        for (const char* folder : {"corpus", "regressions"}) {
            for (const auto& path : inputs_in(root / folder / target)) {
                INFO(path.string());
                const std::string input = read_file(path);
                CHECK_NOTHROW(check.check(input));
                ++replayed;
            }
        }
        INFO(target);
        CHECK(replayed > 0);  // a target without seeds is a target nobody can run well
    }
}
