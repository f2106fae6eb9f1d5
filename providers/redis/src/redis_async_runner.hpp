#pragma once
// Runs the lock scripts on a few non-blocking connections, as redis_lock_provider does on its
// pool: EVALSHA with the script loaded (SCRIPT LOAD) on first use and again after NOSCRIPT, error
// replies classified (redis_errors), and one more run on a new connection when the first failed
// with its connection in a way that makes that safe.

#include "redis_async_connection.hpp"
#include "redis_lock_calls.hpp"
#include "redis_scripts.hpp"

#include <shedlock/asio/detail/unique_function.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

namespace shedlock::providers::detail {

/// When a failed script runs once more on a new connection (as connection_pool's
/// run_retrying_safe and run_retrying_in_doubt decide for the blocking provider).
enum class async_retry {
    when_not_sent,  ///< the connection closed before the script was written (the acquire)
    also_in_doubt,  ///< also when in doubt on a connection that was already in use (unlock, extend:
                    ///< owner-checked, so a second run settles the first)
};

using script_done = shedlock::asio::detail::unique_function<void(std::exception_ptr, std::int64_t)>;

/// Connections: up to pool_size, opened on demand and used round-robin, each pipelining any
/// number of commands. The same budget of server connections as the blocking provider; a killed
/// or timed-out connection fails only the commands on it; one slow reply holds up only its own
/// connection's queue.
///
/// Thread safety: run() and shutdown() on the strand only. Completions are posted to the strand,
/// never called inside hiredis; none is called after shutdown().
class redis_async_runner : public std::enable_shared_from_this<redis_async_runner> {
public:
    redis_async_runner(async_strand strand, const redis_options& options);
    /// Closes the connections shutdown() did not (dropping their operations uncompleted).
    ~redis_async_runner();
    redis_async_runner(const redis_async_runner&) = delete;
    redis_async_runner& operator=(const redis_async_runner&) = delete;

    /// Runs `call`; `done` gets the script's integer answer or the storage_error.
    void run(lock_script_call call, async_retry retry, script_done done);
    /// Closes every connection; operations in flight are dropped without completing.
    void shutdown();

    const async_strand& strand() const noexcept { return strand_; }
    /// How many connections it may open (any thread).
    std::size_t connections() const noexcept { return options_.pool_size; }

private:
    struct operation;
    void start(const std::shared_ptr<operation>& op);
    void load_then_eval(const std::shared_ptr<operation>& op);
    void eval(const std::shared_ptr<operation>& op);
    void on_failure(const std::shared_ptr<operation>& op, std::exception_ptr failure);
    void finish(const std::shared_ptr<operation>& op, std::exception_ptr failure, std::int64_t value);
    /// The connection of slot `i`, a new one when it has none or a closed one.
    std::shared_ptr<redis_async_connection> connection(std::size_t i);

    async_strand strand_;
    const redis_options options_;
    std::vector<std::shared_ptr<redis_async_connection>> slots_;
    std::shared_ptr<redis_async_connection> failed_connect_;  ///< the last connect that failed
    std::size_t next_ = 0;
    redis_scripts scripts_;  ///< only its SHA1 cache
    bool shut_down_ = false;
};

}  // namespace shedlock::providers::detail
