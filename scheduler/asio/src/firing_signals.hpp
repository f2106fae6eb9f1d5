#pragma once
// One firing of the asio scheduler while its lock is held: the body's task_context, the handle
// the keep-alive extends, and the events the body can await (task_signals.hpp). Everything but
// the two atomics is touched on the strand only; a blocking body on the pool reads the atomics
// and its task_context (core's, thread-safe).
#include "strand_event.hpp"

#include <shedlock/asio/lock_handle.hpp>
#include <shedlock/detail/task_context_access.hpp>
#include <shedlock/task_context.hpp>

#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace shedlock::asio::detail {

/// Shared: the signals a body awaits hold it, so a coroutine the body spawned that still waits
/// after the firing ended (an orphan) keeps what it waits on alive.
struct firing_state : std::enable_shared_from_this<firing_state> {
    firing_state(const boost::asio::any_io_executor& strand, std::string lock_name, timestamp scheduled_at,
                 std::optional<std::int64_t> token)
        : context(std::move(lock_name), scheduled_at),
          cancelled(strand),
          lost(strand),
          keep_alive_done(strand),
          keep_alive_timer(strand),
          fencing_token(token) {
        // task_context's own fencing_token() reports it too (there is no blocking handle).
        shedlock::detail::task_context_access::set_fencing_token(context, token);
    }

    /// Shutdown or a lost lease: the body is asked to stop.
    void request_cancellation();
    /// A keep-alive extension found the lease lost: cancellation too.
    void mark_lost();

    task_context context;
    strand_event cancelled;
    strand_event lost;
    strand_event keep_alive_done;  ///< the keep-alive has ended (or never ran): the unlock may start
    boost::asio::steady_timer keep_alive_timer;
    /// The current handle; empty while an extension holds it and once the lease was lost.
    std::optional<lock_handle> handle;
    const std::optional<std::int64_t> fencing_token;
    std::atomic<bool> lock_lost{false};
    bool finished = false;  ///< the body (and claim completion) returned: the keep-alive ends
};

/// Makes `firing` findable from its task_context (task_signals.hpp) while it is alive.
class firing_registration {
public:
    explicit firing_registration(firing_state& firing);
    ~firing_registration();
    firing_registration(const firing_registration&) = delete;
    firing_registration& operator=(const firing_registration&) = delete;

private:
    firing_state& firing_;
};

/// The firing running `ctx`; configuration_error when no asio scheduler runs it (any more).
firing_state& firing_of(const task_context& ctx);
/// As firing_of, shared: for a wait that may outlive the firing.
std::shared_ptr<firing_state> share_firing(const task_context& ctx);

}  // namespace shedlock::asio::detail
