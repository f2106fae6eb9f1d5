#pragma once
/// \file
/// A small pool of SQL connections with replacement of broken ones.

#include <shedlock/providers/sql/sql_connection.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace shedlock::providers::sql {

using connection_factory = std::function<std::unique_ptr<sql_connection>()>;

/// Lends connections to one thread at a time; creates them lazily up to `size`.
///
/// `run(fn)` borrows a connection, calls fn(conn), and returns it. When fn throws
/// storage_error with category `unavailable`, the connection is discarded together with every
/// idle one (they share the server that just failed), so the next call connects afresh: a
/// restarted server is picked up without any action by the caller (one failed call per
/// connection that was in use when the server went away).
///
/// Thread safety: safe for concurrent use.
class connection_pool {
public:
    connection_pool(connection_factory factory, std::size_t size, std::chrono::milliseconds wait_timeout);

    template <typename Fn>
    auto run(Fn&& fn) {
        lease borrowed(*this);
        try {
            return fn(*borrowed.connection);
        } catch (...) {
            borrowed.discard_if_broken(std::current_exception());
            throw;
        }
    }

    /// run(fn), once more on a new connection when a connection that had idled in the pool turned
    /// out to be broken (a server restart or a network reset while it idled). Only for
    /// statements that may safely run twice, such as the owner-checked unlock and extend: without
    /// it a holder's unlock after a long task fails and the lock stays held until lock_until.
    template <typename Fn>
    auto run_idempotent(Fn&& fn) {
        bool reused = false;
        {
            lease borrowed(*this);
            reused = borrowed.reused;
            try {
                return fn(*borrowed.connection);
            } catch (...) {
                const bool broken = borrowed.discard_if_broken(std::current_exception());
                if (!broken || !reused) throw;
            }
        }
        return run(fn);  // the broken connection dropped every idle one: this one is new
    }

private:
    struct lease {
        explicit lease(connection_pool& pool);
        ~lease();
        /// True when the error was `unavailable` and the connection was dropped.
        bool discard_if_broken(std::exception_ptr error) noexcept;
        connection_pool& pool;
        bool reused = false;  ///< taken from the idle list rather than opened for this call
        std::unique_ptr<sql_connection> connection;
    };

    std::unique_ptr<sql_connection> acquire(bool& reused);
    void release(std::unique_ptr<sql_connection> connection, bool broken);

    connection_factory factory_;
    std::size_t size_;
    std::chrono::milliseconds wait_timeout_;
    std::mutex mutex_;
    std::condition_variable available_;
    std::vector<std::unique_ptr<sql_connection>> idle_;
    std::size_t open_ = 0;
};

}  // namespace shedlock::providers::sql
