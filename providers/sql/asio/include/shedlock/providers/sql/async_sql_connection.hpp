#pragma once
/// \file
/// The one interface every SQL backend's non-blocking connection implements (PostgreSQL with
/// libpq's asynchronous API, MariaDB with Connector/C's *_start/*_cont), driven on an Asio
/// executor. The SQL layer's asynchronous lock service runs the same statements as the blocking
/// sql_lock_provider over a pool of these.

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::providers::sql {

/// One non-blocking session with a database. One statement at a time (the pool guarantees it);
/// every call and every completion on the connection's executor (a strand of the application's:
/// the pool hands it out only there).
///
/// Failure: the completion carries a storage_error with the backend's retry advice: `safe` when
/// the statement was never sent (or the server refused it without applying it), `in_doubt` when
/// it was sent and the answer was lost or did not come within the timeout. After an
/// `unavailable` failure usable() is false and the pool discards the connection.
class async_sql_connection {
public:
    virtual ~async_sql_connection() = default;
    /// Runs one statement in its own transaction (autocommit) with positional parameters in the
    /// dialect's placeholder syntax, as sql_connection::execute (or execute_relaxed when
    /// `relaxed`). Completes `done` exactly once, never inside this call.
    virtual void async_execute(const std::string& sql, std::vector<sql_param> params, bool relaxed,
                               asio::completion<sql_result> done) = 0;
    /// False once the connection broke; the pool then opens another.
    virtual bool usable() const noexcept = 0;
};

/// Opens one connection on `executor` (the pool's strand: the connection does all its I/O and
/// completes there) without blocking: completes `done` once, never inside the call, with the
/// connection or a storage_error (safe: nothing was sent). Connecting is bounded by the URI's
/// connect timeout.
using async_connection_factory = std::function<void(asio::lock_service::executor_type executor,
                                                    asio::completion<std::unique_ptr<async_sql_connection>> done)>;

}  // namespace shedlock::providers::sql
