// Opening a non-blocking session: mysql_real_connect_start/_cont within connect_timeout, the
// TLS check of the blocking connection, then the session set-up statement.
#include "mysql_async_session.hpp"

#include "mysql_session.hpp"
#include "mysql_tls.hpp"

#include <shedlock/error.hpp>

#include <boost/asio/post.hpp>

namespace shedlock::providers::detail {
namespace {

std::exception_ptr connect_timed_out(const mysql_error_context& context, std::chrono::milliseconds limit,
                                     const std::string& address) {
    return std::make_exception_ptr(storage_error(
        storage_category::unavailable, retry_advice::safe,
        "MySQL/MariaDB " + context.shown + ": no connection within connect_timeout=" + std::to_string(limit.count()) +
            "ms (at " + address + "); is the server running and reachable? (raise connect_timeout= in the URI for a "
            "slow network)"));
}

}  // namespace

mysql_async_session::mysql_async_session(executor_type executor, const mysql_options& options)
    : executor_(executor), options_(options), context_{options.redacted_uri()}, socket_(executor),
      io_timer_(executor), deadline_(executor) {
    init_mysql_library();
    db_ = mysql_init(nullptr);
    if (!db_) {
        throw storage_error(storage_category::other, retry_advice::safe,
                            "MySQL/MariaDB " + context_.shown + ": out of memory");
    }
    configure_mysql_session(db_, options_);
    // No stack size given: the connector's default stack for a suspended call.
    if (mysql_optionsv(db_, MYSQL_OPT_NONBLOCK, static_cast<void*>(nullptr)) != 0) {
        mysql_close(db_);
        throw storage_error(storage_category::other, retry_advice::safe,
                            "MySQL/MariaDB " + context_.shown + ": the connector could not enable non-blocking mode");
    }
}

mysql_async_session::~mysql_async_session() { close(); }

void mysql_async_session::close() noexcept {
    if (closed_) return;
    closed_ = true;
    resume_ = nullptr;
    finished_ = nullptr;
    connect_done_ = {};
    if (op_) complete(closed_failure(op_->sent), {});
    io_timer_.cancel();
    deadline_.cancel();
    ++deadline_id_;
    if (socket_.is_open()) socket_.release();  // the connector closes its own socket
    // A call left suspended or a broken stream: shut the socket first, so that mysql_close's
    // goodbye cannot wait on it. mysql_close detaches the prepared statements (no COM_STMT_CLOSE
    // is sent); mysql_stmt_close then only frees them.
    if (waiting_ != 0 || broken_) {
        if (const auto fd = mysql_get_socket(db_); fd >= 0) ::shutdown(fd, SHUT_RDWR);
    }
    mysql_close(db_);
    for (auto& [sql, stmt] : statements_) mysql_stmt_close(stmt);
    statements_.clear();
}

void mysql_async_session::connect(std::string host, std::chrono::milliseconds within, asio::void_completion done) {
    connect_host_ = std::move(host);
    connect_done_ = std::move(done);
    connecting_ = true;
    start_deadline(within);
    // Client flags 0: in particular never CLIENT_FOUND_ROWS (see mysql_connection).
    const int status = mysql_real_connect_start(&connect_ret_, db_, connect_host_.c_str(), options_.user.c_str(),
                                                options_.password ? options_.password->c_str() : nullptr,
                                                options_.database.c_str(), options_.port, nullptr, 0);
    run(status, [this](int ready) { return mysql_real_connect_cont(&connect_ret_, db_, ready); },
        [this] { connected(); });
}

void mysql_async_session::connected() {
    connecting_ = false;
    deadline_.cancel();
    ++deadline_id_;
    if (timed_out_) return fail_connect(connect_timed_out(context_, options_.connect_timeout, connect_host_));
    if (!connect_ret_) {
        return fail_connect(failure_of(mysql_errno(db_), mysql_error(db_), mysql_stage::connecting));
    }
    try {
        require_tls(db_, options_.tls, context_);
    } catch (...) {
        return fail_connect(std::current_exception());
    }
    execute(mysql_session_setup(db_, options_), {}, [self = shared_from_this()](std::exception_ptr e, sql::sql_result) {
        if (!e) {
            auto done = std::move(self->connect_done_);
            done(nullptr);
            return;
        }
        try {
            std::rethrow_exception(e);
        } catch (const storage_error& s) {  // nothing of the lock service ran yet: safe
            self->fail_connect(std::make_exception_ptr(storage_error(s.category(), retry_advice::safe, s.what())));
        } catch (...) {
            self->fail_connect(std::current_exception());
        }
    });
}

void mysql_async_session::fail_connect(std::exception_ptr failure) {
    broken_ = true;
    boost::asio::post(executor_, [self = shared_from_this(), failure] {
        if (auto done = std::move(self->connect_done_)) done(failure);
    });
}

}  // namespace shedlock::providers::detail
