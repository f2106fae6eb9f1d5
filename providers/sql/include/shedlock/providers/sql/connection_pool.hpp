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

private:
    struct lease {
        explicit lease(connection_pool& pool);
        ~lease();
        void discard_if_broken(std::exception_ptr error) noexcept;
        connection_pool& pool;
        std::unique_ptr<sql_connection> connection;
    };

    std::unique_ptr<sql_connection> acquire();
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
