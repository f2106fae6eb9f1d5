#pragma once
// The non-blocking PostgreSQL connection: libpq's asynchronous API on an Asio executor
// (private: libpq stays out of public headers).

#include "../postgres_prepared.hpp"
#include "postgres_link.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/async_sql_connection.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace shedlock::providers::detail {

/// What a connection and its statement in flight share.
struct postgres_session {
    std::shared_ptr<postgres_link> link;
    std::string shown;                        // the server as a URI without password
    std::string user;                         // for read_only_primary's ALTER ROLE
    std::chrono::milliseconds answer_within;  // statement_timeout + connect_timeout, as the blocking deadline
    statement_guess guess;  // where its statements live (pooled after the probe found a pooler)
    bool broken = false;
    // A notice said the last commit stopped waiting for the synchronous standby (note_notice).
    bool unconfirmed_commit = false;
};

/// Runs one statement on `session` (posted: completes `done` later, on the link's executor).
/// Statements with parameters are prepared statements named after their text, on the same course
/// as the blocking connection's (postgres_prepared.hpp): the server parses and plans each lock
/// statement once per server connection, also behind a pooler, and a call is one round trip when
/// the guess (bind first, or Parse+Bind+Execute in one pipeline) is right. Parameterless ones
/// (probes, DDL) run as simple queries, also as the blocking connection runs them.
void run_postgres_statement(std::shared_ptr<postgres_session> session, std::string sql,
                            std::vector<std::string> values, asio::completion<sql::sql_result> done);

class postgres_async_connection final : public sql::async_sql_connection {
public:
    explicit postgres_async_connection(std::shared_ptr<postgres_session> session) : session_(std::move(session)) {}
    ~postgres_async_connection() override { session_->link->close(); }

    /// `relaxed` changes nothing here, as in the blocking postgres_connection: the PostgreSQL
    /// dialect puts `set_config('synchronous_commit', 'off', true)` into the unlock statement
    /// itself, so one statement is one round trip either way.
    void async_execute(const std::string& sql, std::vector<sql::sql_param> params, bool relaxed,
                       asio::completion<sql::sql_result> done) override;
    bool usable() const noexcept override { return !session_->broken && session_->link->open(); }

private:
    std::shared_ptr<postgres_session> session_;
};

/// Connects to `options`' server without blocking the executor: PQconnectStart and PQconnectPoll
/// driven by the socket's readiness, bounded by connect_timeout (libpq ignores its own
/// connect_timeout in this mode). Completes `done` later, on `executor`, with the connection or
/// a storage_error (advice safe or permanent: nothing was sent).
/// A host name is resolved by Asio's resolver (getaddrinfo on a thread of its own) and handed
/// to libpq as `hostaddr`: PQconnectStart would otherwise resolve it, blocking the executor.
void postgres_async_connect(boost::asio::any_io_executor executor, const postgres_options& options,
                            asio::completion<std::unique_ptr<sql::async_sql_connection>> done);

}  // namespace shedlock::providers::detail
