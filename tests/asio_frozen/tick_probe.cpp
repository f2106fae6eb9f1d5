#include "tick_probe.hpp"

#include <algorithm>

namespace shedlock::test {

void tick_probe::start() {
    stopped_ = false;
    due_ = std::chrono::steady_clock::now() + period_;
    arm();
}

void tick_probe::stop() {
    // A tick that is due and has not run yet is late already (the thread was busy elsewhere).
    const auto now = std::chrono::steady_clock::now();
    if (!stopped_ && now > due_) lateness_.push_back(std::chrono::duration_cast<std::chrono::microseconds>(now - due_));
    stopped_ = true;
    timer_.cancel();
}

void tick_probe::arm() {
    timer_.expires_at(due_);
    timer_.async_wait([this](const boost::system::error_code& error) {
        if (error || stopped_) return;
        lateness_.push_back(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - due_));
        due_ += period_;  // fixed rate: a late tick does not move the ones after it
        arm();
    });
}

std::chrono::microseconds tick_probe::max_lateness() const {
    return lateness_.empty() ? std::chrono::microseconds{0} : *std::max_element(lateness_.begin(), lateness_.end());
}

std::chrono::microseconds tick_probe::median_lateness() const {
    if (lateness_.empty()) return std::chrono::microseconds{0};
    auto sorted = lateness_;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    return sorted[sorted.size() / 2];
}

}  // namespace shedlock::test
