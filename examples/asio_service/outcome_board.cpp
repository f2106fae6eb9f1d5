#include "outcome_board.hpp"

#include <shedlock/locking_task_executor.hpp>
#include <shedlock/time.hpp>

#include <unistd.h>

#include <set>

namespace asio_service {

void outcome_board::append(const shedlock::run_record& record) {
    {
        const std::lock_guard guard(mutex_);
        last_[record.task] = record;
    }
    inner_.append(record);  // the backend's own store: a blocking call, on the scheduler's pool
}

void outcome_board::set_running(const std::string& task, bool running) {
    const std::lock_guard guard(mutex_);
    running_[task] = running;
}

std::string outcome_board::json() const {
    std::map<std::string, shedlock::run_record> last;
    std::map<std::string, bool> running;
    {
        const std::lock_guard guard(mutex_);
        last = last_;
        running = running_;
    }
    std::set<std::string> names;
    for (const auto& [name, record] : last) names.insert(name);
    for (const auto& [name, on] : running) names.insert(name);
    // Task names and outcomes are our own identifiers: nothing to escape.
    std::string out = "{\"pid\":" + std::to_string(::getpid()) + ",\"tasks\":{";
    const char* separator = "";
    for (const auto& name : names) {
        out += separator + ("\"" + name + "\":{\"running\":") + (running[name] ? "true" : "false");
        if (const auto found = last.find(name); found != last.end())
            out += std::string(",\"outcome\":\"") + shedlock::to_string(found->second.outcome) +
                   "\",\"scheduled_at\":\"" + shedlock::format_iso_timestamp(found->second.scheduled_at) + "\"";
        out += "}";
        separator = ",";
    }
    return out + "}}";
}

}  // namespace asio_service
