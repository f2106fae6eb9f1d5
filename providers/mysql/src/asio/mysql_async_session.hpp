#pragma once
// One non-blocking MariaDB Connector/C session on an Asio executor (private: <mysql.h> stays in
// src/). The connector's *_start/*_cont calls do the protocol; this class only waits for what
// they ask (socket readiness, the connector's own timeouts) and bounds connecting and each
// statement by a deadline of its own.

#include "mysql_errors.hpp"
#include "mysql_statement.hpp"

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_connection.hpp>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <mysql.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shedlock::providers::detail {

/// Everything runs on `executor` (the pool's strand): every call, every wait, every completion.
/// One operation at a time. Completions are always queued, never run inside a call.
///
/// Lifetime: shared; the waits in flight keep it alive. close() (the owner's destructor) ends
/// it without waiting: a statement in flight then completes (queued) with `unavailable`, in
/// doubt once it was sent, so that every completion runs exactly once.
class mysql_async_session : public std::enable_shared_from_this<mysql_async_session> {
public:
    using executor_type = asio::lock_service::executor_type;

    /// mysql_init and the options of the blocking connection, plus MYSQL_OPT_NONBLOCK. Throws
    /// storage_error when the connector cannot allocate a session.
    mysql_async_session(executor_type executor, const mysql_options& options);
    ~mysql_async_session();
    mysql_async_session(const mysql_async_session&) = delete;
    mysql_async_session& operator=(const mysql_async_session&) = delete;

    /// Connects to `host` (the URI's, or one address of it), checks TLS as ssl_mode demands and
    /// sets the session up, connecting within `within`. Failures are storage_errors, safe to
    /// retry (nothing was run).
    void connect(std::string host, std::chrono::milliseconds within, asio::void_completion done);
    /// Runs one statement (see async_sql_connection::async_execute), within statement_timeout
    /// plus one second; past that the connection is closed and the statement fails in doubt
    /// (safe when it was never sent).
    void execute(std::string sql, std::vector<sql::sql_param> params, asio::completion<sql::sql_result> done);
    /// False once an `unavailable` failure or a timeout broke the connection.
    bool usable() const noexcept { return !broken_ && !closed_; }
    /// Closes the session without waiting (idempotent).
    void close() noexcept;

private:
    /// Resumes the connector call in progress with the events that occurred; returns the next
    /// events it waits for, or 0 when it finished.
    using resume_fn = std::function<int(int ready)>;
    using then_fn = std::function<void()>;
    struct operation;  // the statement in flight

    // Waiting (mysql_async_io.cpp).
    void run(int status, resume_fn resume, then_fn finished);
    void advance(int status);
    void watch_socket(int status, std::uint64_t generation);
    void watch_timeout(std::uint64_t generation);
    void resume(std::uint64_t generation, int ready);
    void start_deadline(std::chrono::milliseconds limit);
    void on_deadline();
    int abort_answer() const noexcept;

    // Connecting (mysql_async_connect.cpp).
    void connected();
    void fail_connect(std::exception_ptr failure);

    // Statements (mysql_async_execute.cpp).
    void run_text();
    void run_prepared();
    void prepared(MYSQL_STMT* stmt);
    void executed();
    void stored();
    void complete(std::exception_ptr failure, sql::sql_result result);
    std::exception_ptr failure_of(unsigned code, const std::string& message, mysql_stage stage);
    std::exception_ptr stmt_failure(MYSQL_STMT* stmt, mysql_stage stage);
    std::exception_ptr timeout_failure(bool sent) const;
    std::exception_ptr closed_failure(bool sent) const;

    executor_type executor_;
    mysql_options options_;
    mysql_error_context context_;
    MYSQL* db_ = nullptr;
    boost::asio::posix::stream_descriptor socket_;
    boost::asio::steady_timer io_timer_;   // the connector's MYSQL_WAIT_TIMEOUT
    boost::asio::steady_timer deadline_;   // ours: connect_timeout, or statement_timeout + 1 s
    resume_fn resume_;
    then_fn finished_;
    std::uint64_t generation_ = 0;  // the current wait; older wake-ups are ignored
    std::uint64_t deadline_id_ = 0;  // the operation the deadline timer runs for
    int waiting_ = 0;               // the events the connector waits for (0: not waiting)
    bool connecting_ = false;       // the socket may change between waits (address after address)
    bool timed_out_ = false;        // our deadline passed: the operation is being wound up
    int abort_rounds_ = 0;
    bool broken_ = false;
    bool closed_ = false;
    int int_ret_ = 0;
    MYSQL* connect_ret_ = nullptr;
    MYSQL_RES* result_ret_ = nullptr;
    std::string connect_host_;
    asio::void_completion connect_done_;
    std::unique_ptr<operation> op_;
    std::map<std::string, MYSQL_STMT*, std::less<>> statements_;
};

/// The statement in flight and what the connector reads while it runs.
struct mysql_async_session::operation {
    std::string sql;
    std::vector<sql::sql_param> params;
    asio::completion<sql::sql_result> done;
    MYSQL_STMT* stmt = nullptr;
    std::optional<param_binding> binding;  // read by the connector until the execution ends
    std::optional<row_binding> rows;
    bool sent = false;  // from the first byte of the statement's execution on
};

}  // namespace shedlock::providers::detail
