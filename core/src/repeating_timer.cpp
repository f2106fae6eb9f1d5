#include <shedlock/detail/repeating_timer.hpp>

#include <mutex>

namespace shedlock::detail {

struct repeating_timer::state {
    timer_service* timers = nullptr;
    std::mutex mutex;  // held while `step` runs: stop() waits for it
    bool stopped = false;
    timer_service::timer_id pending = 0;
    repeating_timer::step step;
    repeating_timer::runner run_on;  // null: the step runs on the timer thread
};

void repeating_timer::fire(const std::shared_ptr<state>& s) {
    if (s->run_on) {
        try {
            s->run_on([s] { run_step(s); });
            return;
        } catch (...) {
            // No thread to run it on: run it here rather than let the repetition end unseen.
        }
    }
    run_step(s);
}

void repeating_timer::run_step(const std::shared_ptr<state>& s) {
    std::lock_guard lock(s->mutex);
    s->pending = 0;
    if (s->stopped) return;
    const auto next = s->step();
    if (!next) {
        s->stopped = true;
        s->step = nullptr;
        return;
    }
    arm(s, *next);
}

void repeating_timer::arm(const std::shared_ptr<state>& s, std::chrono::steady_clock::duration delay) {
    s->pending = s->timers->call_after(delay, [s] { fire(s); });
}

repeating_timer::repeating_timer(timer_service& timers, std::chrono::steady_clock::duration first, step s,
                                 runner run_on)
    : state_(std::make_shared<state>()) {
    state_->timers = &timers;
    state_->step = std::move(s);
    state_->run_on = std::move(run_on);
    std::lock_guard lock(state_->mutex);
    arm(state_, first);
}

void repeating_timer::stop() noexcept {
    std::lock_guard lock(state_->mutex);
    if (state_->pending != 0) state_->timers->cancel(state_->pending);
    state_->pending = 0;
    state_->stopped = true;
    state_->step = nullptr;
}

}  // namespace shedlock::detail
