#include "op_log.hpp"

namespace shedlock::model {

void op_log::begin(long step, const std::string& what) {
    entries_.push_back("#" + std::to_string(step) + " " + what);
    while (entries_.size() > keep_) entries_.pop_front();
}

void op_log::note(const std::string& text) {
    if (entries_.empty()) entries_.emplace_back();
    entries_.back() += " " + text;
}

std::string op_log::render() const {
    std::string out;
    for (const auto& e : entries_) out += "  " + e + "\n";
    return out;
}

}  // namespace shedlock::model
