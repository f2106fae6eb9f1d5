#include "fenced_resource.hpp"

#include "chaos_clock.hpp"
#include "journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <stdexcept>

namespace shedlock::chaos {
namespace {

std::optional<std::int64_t> read_highest(const std::string& path) {
    std::ifstream in(path);
    std::int64_t value = 0;
    if (in >> value) return value;
    return std::nullopt;
}

void write_highest(const std::string& path, std::int64_t token) {
    // One pwrite over the old value, no truncation: tokens only grow, so the new text is never
    // shorter, and a writer killed at any point leaves either the old or the new value.
    const std::string text = std::to_string(token) + "\n";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    const bool ok = fd >= 0 && ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
    if (fd >= 0) ::close(fd);
    if (!ok) throw std::runtime_error("cannot write resource state " + path);
}

}  // namespace

fenced_resource::fenced_resource(std::string dir) : dir_(std::move(dir)) {}

bool fenced_resource::begin(const std::string& name, std::int64_t attempt, std::int64_t token) {
    locked_journal journal(journal_path());
    const std::string state = dir_ + "/state-" + name;
    const auto highest = read_highest(state);
    const bool accepted = token >= 0 && (!highest || token >= *highest);
    if (accepted) write_highest(state, token);
    journal.append({now_us(), "begin", name, attempt, token, accepted});
    return accepted;
}

bool fenced_resource::commit(const std::string& name, std::int64_t attempt, std::int64_t token, bool began) {
    locked_journal journal(journal_path());
    const auto highest = read_highest(dir_ + "/state-" + name);
    const bool accepted = began && token >= 0 && (!highest || token >= *highest);
    journal.append({now_us(), "commit", name, attempt, token, accepted});
    return accepted;
}

}  // namespace shedlock::chaos
