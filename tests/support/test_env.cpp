#include "test_env.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace shedlock::test {

std::string scratch_dir() {
    static const std::string dir = [] {
        const char* base = std::getenv("SHEDLOCK_TEST_TMPDIR");
        std::filesystem::path root = base && *base ? base : std::filesystem::temp_directory_path().string();
        auto path = root / ("shedlock-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(path);
        static const std::string to_remove = path.string();
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(to_remove, ignored);
        });
        return path.string();
    }();
    return dir;
}

}  // namespace shedlock::test
