#pragma once
// How many threads this process has now: the entries of /proc/self/task (Linux).

#include <cstddef>
#include <filesystem>

namespace shedlock::test {

inline std::size_t process_threads() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
}

}  // namespace shedlock::test
