#pragma once
// The journal of a chaos run: one line per event of the protected resource, written by every
// process of the run (the resource helper, the planted-bug worker) under an exclusive flock.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::chaos {

/// What happened, when (chaos_clock time), to which lock, in which attempt.
///   begin         the command entered its critical section with `token`
///   commit        the command tried to write with `token` (accepted: the resource took it)
///   extend_start  a (planted-bug) worker started extending its lease
///   extend_ok     that extension reported success; extend_lost: it reported the lock lost
struct journal_event {
    std::int64_t t_us = 0;
    std::string kind;
    std::string name;
    std::int64_t attempt = 0;
    std::int64_t token = -1;  ///< -1: the command got no fencing token
    bool accepted = false;
};

std::string format_event(const journal_event& e);

/// Empty for a line that is not an event (a torn line of a killed writer is skipped, not fatal).
std::optional<journal_event> parse_event(std::string_view line);

/// The journal opened for appending and exclusively flocked until destruction: what a writer
/// decides while holding it (the fenced resource's check) is atomic with the lines it appends.
class locked_journal {
public:
    explicit locked_journal(const std::string& journal_path);
    ~locked_journal();
    locked_journal(const locked_journal&) = delete;
    locked_journal& operator=(const locked_journal&) = delete;
    /// One write(2) per line, so a writer killed mid-way leaves whole lines or none.
    void append(const journal_event& e);

private:
    int fd_ = -1;
    std::string path_;
};

/// Appends one event under the journal's flock.
void append_event(const std::string& journal_path, const journal_event& e);

/// Every event of the journal, in file order; an absent file has none.
std::vector<journal_event> load_journal(const std::string& journal_path);

}  // namespace shedlock::chaos
