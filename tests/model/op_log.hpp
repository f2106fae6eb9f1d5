#pragma once
// The last operations of a run, for the failure message: a mismatch at step 7,412 is only
// understandable with the steps that led to it.

#include <cstddef>
#include <deque>
#include <string>

namespace shedlock::model {

class op_log {
public:
    explicit op_log(std::size_t keep = 20) : keep_(keep) {}

    /// Starts the entry of a new step.
    void begin(long step, const std::string& what);
    /// Appends to the current entry (what was expected, what happened).
    void note(const std::string& text);
    /// The kept entries, oldest first, one per line.
    std::string render() const;

private:
    std::size_t keep_;
    std::deque<std::string> entries_;
};

}  // namespace shedlock::model
