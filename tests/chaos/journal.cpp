#include "journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace shedlock::chaos {

std::string format_event(const journal_event& e) {
    std::ostringstream out;
    out << e.t_us << ' ' << e.kind << ' ' << e.name << ' ' << e.attempt << ' ' << e.token << ' '
        << (e.accepted ? "ok" : "rejected") << '\n';
    return out.str();
}

std::optional<journal_event> parse_event(std::string_view line) {
    std::istringstream in{std::string(line)};
    journal_event e;
    std::string verdict;
    if (!(in >> e.t_us >> e.kind >> e.name >> e.attempt >> e.token >> verdict)) return std::nullopt;
    if (verdict != "ok" && verdict != "rejected") return std::nullopt;
    e.accepted = verdict == "ok";
    return e;
}

locked_journal::locked_journal(const std::string& journal_path) : path_(journal_path) {
    fd_ = ::open(journal_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open journal " + journal_path + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX) != 0) {
        ::close(fd_);
        throw std::runtime_error("cannot lock journal " + journal_path + ": " + std::strerror(errno));
    }
}

locked_journal::~locked_journal() { ::close(fd_); }  // also drops the flock

void locked_journal::append(const journal_event& e) {
    const std::string line = format_event(e);
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        throw std::runtime_error("short write to journal " + path_);
}

void append_event(const std::string& journal_path, const journal_event& e) { locked_journal(journal_path).append(e); }

std::vector<journal_event> load_journal(const std::string& journal_path) {
    std::vector<journal_event> events;
    std::ifstream in(journal_path);
    std::string line;
    while (std::getline(in, line))  // bounded by the file's size
        if (auto e = parse_event(line)) events.push_back(std::move(*e));
    return events;
}

}  // namespace shedlock::chaos
