#pragma once
// The warnings a scheduler gives (scheduler_options::warn), collected from any thread, for tests
// that count them.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace shedlock::test {

class warning_log {
public:
    /// A sink for scheduler_options::warn; the log must outlive the scheduler.
    std::function<void(const std::string&)> sink() {
        return [this](const std::string& w) {
            std::lock_guard lock(mutex_);
            warnings_.push_back(w);
        };
    }
    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return warnings_.size();
    }
    /// How many warnings contain `text`.
    std::size_t count(const std::string& text) const {
        std::lock_guard lock(mutex_);
        return static_cast<std::size_t>(std::count_if(warnings_.begin(), warnings_.end(), [&](const std::string& w) {
            return w.find(text) != std::string::npos;
        }));
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> warnings_;
};

}  // namespace shedlock::test
