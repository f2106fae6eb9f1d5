#include "executor_listeners.hpp"

#include <cstdio>
#include <exception>

namespace shedlock::detail {

constinit thread_local std::uint32_t calls_until_timed = 0;

template <typename Call>
void executor_listeners::each(const char* hook, const execution_event& e, Call call) noexcept {
    for (const auto& listener : users_) {
        std::string why;
        try {
            call(*listener);
            continue;
        } catch (const std::exception& ex) {
            why = ex.what();
        } catch (...) {
            why = "a non-standard exception";
        }
        try {
            const std::string line = std::string("executor listener threw in ") + hook + " of lock \"" +
                                     e.config.name() + "\": " + why + "; the execution and the other listeners carried on";
            if (on_error_) on_error_(line);
            else std::fprintf(stderr, "shedlock executor: %s\n", line.c_str());
        } catch (...) {
            // The report itself failed (out of memory, a throwing handler): nothing left to tell.
        }
    }
}

void executor_listeners::notify_users(const execution_event& e) {
    each("on_acquired", e, [&e](executor_listener& l) { l.on_acquired(e); });
}

void executor_listeners::notify_users(const skipped_event& e) {
    each("on_skipped", e, [&e](executor_listener& l) { l.on_skipped(e); });
}

void executor_listeners::notify_users(const lock_lost_event& e) {
    each("on_lock_lost", e, [&e](executor_listener& l) { l.on_lock_lost(e); });
}

void executor_listeners::notify_users(const finished_event& e) {
    each("on_finished", e, [&e](executor_listener& l) { l.on_finished(e); });
}

void executor_listeners::notify_users_end(const execution_event& base, const execution_result& result,
                                          std::chrono::nanoseconds duration) {
    if (result.outcome == run_outcome::succeeded || result.outcome == run_outcome::failed)
        notify_users(finished_event{base, result, duration});
    else
        notify_users(skipped_event{base, result.outcome, result.message});
}

}  // namespace shedlock::detail
