#pragma once
// An executor listener that writes down every call: the hook, what the event said and the thread
// that made the call, so tests can check "exactly once, from the documented thread".

#include <shedlock/executor_listener.hpp>
#include <shedlock/locking_task_executor.hpp>

#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace shedlock::test {

struct listener_call {
    std::string hook;  // "acquired", "skipped", "lock_lost", "finished"
    std::string lock_name;
    std::string task;
    timestamp scheduled_at;
    lock_attempt attempt;
    std::optional<std::int64_t> fencing_token;
    std::optional<run_outcome> outcome;  // skipped and finished only
    std::string message;
    bool lock_lost = false;  // finished only
    std::thread::id thread;
};

class recording_listener : public executor_listener {
public:
    void on_acquired(const execution_event& e) override { add("acquired", e, std::nullopt, ""); }
    void on_skipped(const skipped_event& e) override { add("skipped", e, e.outcome, e.message); }
    void on_lock_lost(const lock_lost_event& e) override { add("lock_lost", e, std::nullopt, ""); }
    void on_finished(const finished_event& e) override {
        add("finished", e, e.result.outcome, e.result.message, e.result.lock_lost);
    }

    std::vector<listener_call> calls() const {
        std::lock_guard lock(mutex_);
        return calls_;
    }
    /// The calls that carry an outcome (skipped, finished).
    std::vector<listener_call> outcomes() const {
        std::vector<listener_call> out;
        for (auto& c : calls())
            if (c.outcome) out.push_back(c);
        return out;
    }

private:
    void add(const char* hook, const execution_event& e, std::optional<run_outcome> outcome, const std::string& message,
             bool lost = false) {
        std::lock_guard lock(mutex_);
        calls_.push_back({hook, e.config.name(), std::string(e.task), e.scheduled_at, e.attempt, e.fencing_token, outcome,
                          message, lost, std::this_thread::get_id()});
    }

    mutable std::mutex mutex_;
    std::vector<listener_call> calls_;
};

/// Throws from every hook: the executor must carry on and still call the listeners after it.
class throwing_listener : public executor_listener {
public:
    void on_acquired(const execution_event&) override { throw std::runtime_error("listener broke in on_acquired"); }
    void on_skipped(const skipped_event&) override { throw std::runtime_error("listener broke in on_skipped"); }
    void on_lock_lost(const lock_lost_event&) override { throw std::runtime_error("listener broke in on_lock_lost"); }
    void on_finished(const finished_event&) override { throw 42; }  // not even a std::exception
};

}  // namespace shedlock::test
