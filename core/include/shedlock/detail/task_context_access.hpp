#pragma once
/// \file
/// The executor's side of a task_context: hand it the acquired lock, take the lock back for the
/// final unlock, give it the idempotency claim. Not the task's, and not a user API: the executor
/// (and the hand-written floor of bench/listener_overhead) are its callers.

#include <shedlock/task_context.hpp>

#include <optional>
#include <utility>

namespace shedlock::detail {

struct task_context_access {
    /// The context holds (and extends) the handle from now on; null: none.
    static void attach(task_context& context, lock_handle* handle) { context.attach(handle); }
    /// The current handle (after extensions), for the final unlock; empty when lost or taken.
    static std::optional<lock_handle> detach(task_context& context) { return context.detach(); }
    static void set_claim(task_context& context, idempotency_claim claim) { context.set_claim(std::move(claim)); }
    /// For a lock held through the asynchronous interface (no blocking handle to attach): what
    /// fencing_token() and lock_lost() then report.
    static void set_fencing_token(task_context& context, std::optional<std::int64_t> token) {
        context.set_fencing_token(token);
    }
    static void mark_lock_lost(task_context& context) noexcept { context.mark_lock_lost(); }
};

}  // namespace shedlock::detail
