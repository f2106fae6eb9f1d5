#pragma once
/// \file
/// Where tasks are declared: a registry filled by code or by SHEDLOCK_SCHEDULED at static-init time.

#include <shedlock/task_definition.hpp>

#include <mutex>
#include <string_view>
#include <vector>

namespace shedlock {

/// An ordered list of task definitions. `add` never throws and never rejects: duplicates and bad
/// values are reported together by `scheduler::start()`, so registration at static-init time
/// cannot abort the program. A configuration layer may change definitions through `find` before
/// the scheduler starts.
///
/// Thread safety: add/find/tasks are serialised by an internal mutex; do not keep a pointer from
/// find() across concurrent adds.
class task_registry {
public:
    void add(task_definition task);
    template <typename... Options>
    void add(std::string name, task_body body, const Options&... options) {
        add(make_task(std::move(name), std::move(body), options...));
    }
    /// A copy of every definition, in registration order.
    std::vector<task_definition> tasks() const;
    /// The first definition named `name`, or nullptr.
    task_definition* find(std::string_view name);
    std::size_t size() const;

private:
    mutable std::mutex mutex_;
    std::vector<task_definition> tasks_;
};

/// The process-wide registry SHEDLOCK_SCHEDULED adds to (constructed on first use, so it is safe
/// to use from other translation units' static initialisers).
task_registry& global_task_registry();

namespace detail {
/// Adds to the global registry at static-init time; returns true.
bool register_scheduled(task_definition task) noexcept;
}  // namespace detail

}  // namespace shedlock

/// Declares a function and registers it in global_task_registry() at static-init time:
///
///     SHEDLOCK_SCHEDULED(reconcile, cron("0 0 2 * * ?"), lock_at_most_for("PT30M"),
///                        lock_at_least_for("PT5S")) {
///         ctx.count("scanned", n);   // the body sees `shedlock::task_context& ctx`
///     }
///
/// The task is named after the identifier. Trigger and options are those of make_task(); they
/// are looked up in namespace shedlock, so no using-directive is needed.
#define SHEDLOCK_SCHEDULED(task_name, ...)                                                          \
    static void shedlock_scheduled_##task_name(::shedlock::task_context& ctx);                     \
    [[maybe_unused]] static const bool shedlock_registered_##task_name = [] {                      \
        using namespace ::shedlock;                                                                 \
        return ::shedlock::detail::register_scheduled(                                              \
            ::shedlock::make_task(#task_name, &shedlock_scheduled_##task_name, __VA_ARGS__));       \
    }();                                                                                            \
    static void shedlock_scheduled_##task_name([[maybe_unused]] ::shedlock::task_context& ctx)
