#pragma once
/// \file
/// A pool of non-blocking SQL connections on one strand: what the asynchronous SQL lock service
/// runs its statements on. No thread of its own; at most `size` connections, each running one
/// statement at a time, the other statements queued in arrival order.

#include <shedlock/providers/sql/async_sql_connection.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

namespace shedlock::providers::sql {

/// When a statement that failed on a connection that broke runs once more on a new one (as the
/// blocking pool's run_retrying_safe / run_retrying_in_doubt).
enum class retry_policy {
    when_safe,          ///< only when it was never applied (retry_advice::safe): acquire, reads
    when_safe_or_idle,  ///< also in doubt on a connection that had idled: owner-checked writes
};

/// Thread safety: execute() from any thread; everything else happens on the pool's strand.
/// Lifetime: shared (the operations in flight keep it alive).
class async_connection_pool : public std::enable_shared_from_this<async_connection_pool> {
public:
    using strand_type = boost::asio::strand<boost::asio::any_io_executor>;

    async_connection_pool(boost::asio::any_io_executor executor, async_connection_factory connect, std::size_t size,
                          std::chrono::milliseconds wait);

    /// Runs one statement; completes `done` on the strand with its result or a storage_error
    /// (the statement's own, or "no connection free within <wait>", which is safe).
    void execute(std::string sql, std::vector<sql_param> params, bool relaxed, retry_policy policy,
                 asio::completion<sql_result> done);

    const strand_type& strand() const noexcept { return strand_; }
    std::size_t size() const noexcept { return size_; }

private:
    struct job;

    void admit(std::shared_ptr<job> j);
    void open_for(std::shared_ptr<job> j);
    void run(std::unique_ptr<async_sql_connection> c, bool reused, std::shared_ptr<job> j);
    void finished(std::unique_ptr<async_sql_connection> c, bool reused, std::shared_ptr<job> j,
                  std::exception_ptr failure, sql_result result);
    /// Hands a free connection (or a free slot) to the oldest waiting job.
    void serve_waiting(std::unique_ptr<async_sql_connection> c);
    void expire(const std::shared_ptr<job>& j);
    std::unique_ptr<async_sql_connection> take_busy(async_sql_connection* conn);

    strand_type strand_;
    async_connection_factory connect_;
    std::size_t size_;
    std::chrono::milliseconds wait_;
    std::size_t open_ = 0;  // connections open or opening
    std::vector<std::unique_ptr<async_sql_connection>> idle_;
    std::vector<std::unique_ptr<async_sql_connection>> busy_;  // running a statement
    std::deque<std::shared_ptr<job>> waiting_;
};

}  // namespace shedlock::providers::sql
