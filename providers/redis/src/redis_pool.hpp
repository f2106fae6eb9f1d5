#pragma once
// A small pool of Redis connections: opened on demand, broken ones replaced, fail-fast while down.

#include "redis_connection.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shedlock::providers::detail {

class redis_pool;

/// A connection borrowed from the pool; returned (or dropped when broken) on destruction.
class pooled_connection {
public:
    pooled_connection(redis_pool& pool, std::unique_ptr<redis_connection> connection)
        : pool_(&pool), connection_(std::move(connection)) {}
    pooled_connection(pooled_connection&&) = default;
    pooled_connection& operator=(pooled_connection&&) = delete;
    ~pooled_connection();
    redis_connection& operator*() const noexcept { return *connection_; }
    redis_connection* operator->() const noexcept { return connection_.get(); }

private:
    redis_pool* pool_;
    std::unique_ptr<redis_connection> connection_;
};

/// At most `pool_size` open connections. After a connect fails for lack of a server, further
/// connects are skipped for `reconnect_backoff` and calls fail at once with the same error, so a
/// Redis outage costs callers microseconds, not a connect timeout each. A broken connection also
/// drops the idle ones: after a server restart they are all dead.
///
/// Thread safety: safe for concurrent use.
class redis_pool {
public:
    static constexpr std::chrono::milliseconds reconnect_backoff{250};

    explicit redis_pool(redis_options options) : options_(std::move(options)) {}

    /// A connection, waiting up to command_timeout for a free one. Throws storage_error.
    pooled_connection borrow();

private:
    friend class pooled_connection;
    void give_back(std::unique_ptr<redis_connection> connection) noexcept;
    std::unique_ptr<redis_connection> open();

    const redis_options options_;
    std::mutex mutex_;
    std::condition_variable freed_;
    std::vector<std::unique_ptr<redis_connection>> idle_;
    std::size_t open_ = 0;  // idle + borrowed + being opened
    std::chrono::steady_clock::time_point retry_after_{};
    std::string last_connect_error_;
};

}  // namespace shedlock::providers::detail
