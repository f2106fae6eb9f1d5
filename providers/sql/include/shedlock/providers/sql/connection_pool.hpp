#pragma once
/// \file
/// The SQL providers' connection pool: the pool every server backend shares, over sql_connection.

#include <shedlock/detail/connection_pool.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

namespace shedlock::providers::sql {

using connection_factory = std::function<std::unique_ptr<sql_connection>()>;
using connection_pool = shedlock::detail::connection_pool<sql_connection>;

/// `size` connections at most, waiting up to `wait` for a free one. No reconnect backoff: a
/// restarted server is used by the very next call (SQL connects are cheap next to a timeout).
inline connection_pool::settings pool_settings(std::size_t size, std::chrono::milliseconds wait) {
    connection_pool::settings s;
    s.size = size;
    s.wait_timeout = wait;
    return s;
}

/// The pool of one SQL part (lock provider, run store, idempotency store): its own, or the one pool of
/// the backend session it belongs to (backend_session.hpp), shared with the session's other parts.
/// Offers the pool calls the parts make.
class shared_pool {
public:
    /// `session_pool` when given (the session's), else a pool of its own over `open` and `s`.
    shared_pool(connection_factory open, connection_pool::settings s, std::shared_ptr<connection_pool> session_pool = {})
        : pool_(session_pool ? std::move(session_pool) : std::make_shared<connection_pool>(std::move(open), std::move(s))) {}

    connection_pool::borrowed_connection borrow() { return pool_->borrow(); }
    template <typename Fn>
    auto run(Fn&& fn) { return pool_->run(std::forward<Fn>(fn)); }
    template <typename Fn>
    auto run_retrying_safe(Fn&& fn) { return pool_->run_retrying_safe(std::forward<Fn>(fn)); }
    template <typename Fn>
    auto run_retrying_in_doubt(Fn&& fn) { return pool_->run_retrying_in_doubt(std::forward<Fn>(fn)); }
    operator connection_pool&() noexcept { return *pool_; }

private:
    std::shared_ptr<connection_pool> pool_;
};

}  // namespace shedlock::providers::sql
