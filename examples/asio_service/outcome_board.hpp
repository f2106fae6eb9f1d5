#pragma once
// The last outcome of each task on this instance, for GET /health: a run_store in front of the
// backend's, which sees every record the scheduler writes (skips included, which a body never
// sees), and the tasks whose bodies are running now.

#include <shedlock/run_store.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace asio_service {

/// Forwards every call to `inner` and remembers, per task, the newest appended record.
/// Thread safety: append() runs on the scheduler's pool, json() on the HTTP handler's thread:
/// the map is under a mutex held only to copy one record.
class outcome_board final : public shedlock::run_store {
public:
    explicit outcome_board(shedlock::run_store& inner) : inner_(inner) {}

    void append(const shedlock::run_record& record) override;
    std::vector<shedlock::run_record> last_runs(const std::string& task, std::size_t n) override {
        return inner_.last_runs(task, n);
    }
    std::vector<shedlock::run_record> last_runs_of_instance(const std::string& task, const std::string& instance,
                                                            std::size_t n) override {
        return inner_.last_runs_of_instance(task, instance, n);
    }
    std::vector<std::string> tasks() override { return inner_.tasks(); }
    const shedlock::run_retention& retention() const noexcept override { return inner_.retention(); }

    /// Marks a body as running (true) or returned (false); shown as "running" in json().
    void set_running(const std::string& task, bool running);

    /// {"pid":N,"tasks":{"name":{"outcome":"...","scheduled_at":"...","running":bool},...}}
    std::string json() const;

private:
    shedlock::run_store& inner_;
    mutable std::mutex mutex_;
    std::map<std::string, shedlock::run_record> last_;
    std::map<std::string, bool> running_;
};

}  // namespace asio_service
