// Opening a non-blocking connection: PQconnectStart, then PQconnectPoll each time the socket is
// ready as libpq asked, under our own connect timeout.
#include "../postgres_conninfo.hpp"
#include "../postgres_error.hpp"
#include "postgres_async_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace shedlock::providers::detail {
namespace {

/// libpq's default prints notices on stderr; the blocking connection (libpqxx) drops them too.
void drop_notice(void*, const char*) {}

class connect_run : public std::enable_shared_from_this<connect_run> {
public:
    using done_type = asio::completion<std::unique_ptr<sql::async_sql_connection>>;

    connect_run(boost::asio::any_io_executor executor, const postgres_options& options, done_type done)
        : executor_(std::move(executor)), shown_(options.redacted_uri()), within_(options.connect_timeout),
          answer_within_(options.statement_timeout + options.connect_timeout), done_(std::move(done)),
          timer_(executor_) {}

    /// Runs on the executor (posted by postgres_async_connect).
    void start(const std::string& conninfo) {
        PGconn* conn = PQconnectStart(conninfo.c_str());
        if (!conn) return fail(postgres_error(postgres_failure::connection, "out of memory", "", shown_, false));
        link_ = std::make_shared<postgres_link>(executor_, conn);
        if (PQstatus(conn) == CONNECTION_BAD) return fail_libpq();
        PQsetNoticeProcessor(conn, drop_notice, nullptr);
        timer_.expires_after(within_);
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec && !self->finished_) self->fail_timeout();
        });
        step(PGRES_POLLING_WRITING);  // libpq's documented first state
    }

private:
    void step(PostgresPollingStatusType status) {
        if (status == PGRES_POLLING_OK) return succeed();
        if (status == PGRES_POLLING_FAILED) return fail_libpq();
        link_->wait(status == PGRES_POLLING_WRITING, [self = shared_from_this()](boost::system::error_code ec) {
            if (self->finished_) return;
            if (ec) return self->fail(postgres_error(postgres_failure::connection, ec.message(), "", self->shown_, false));
            self->step(PQconnectPoll(self->link_->get()));
        });
    }

    void succeed() {
        if (PQsetnonblocking(link_->get(), 1) != 0) return fail_libpq();
        finished_ = true;
        timer_.cancel();
        auto session = std::make_shared<postgres_session>();
        session->link = link_;
        session->shown = shown_;
        session->answer_within = answer_within_;
        auto done = std::move(done_);
        done(nullptr, std::make_unique<postgres_async_connection>(std::move(session)));
    }

    void fail_libpq() { fail(postgres_error(postgres_failure::connection, PQerrorMessage(link_->get()), "", shown_, false)); }

    void fail_timeout() {
        fail(storage_error(storage_category::unavailable, retry_advice::safe,
                           "PostgreSQL " + shown_ + ": no connection within " + postgres_seconds_text(within_) +
                               " (connect_timeout); is the server running and reachable?"));
    }

    void fail(const storage_error& e) {
        if (finished_) return;
        finished_ = true;
        timer_.cancel();
        if (link_) link_->close();
        auto done = std::move(done_);
        done(std::make_exception_ptr(e), nullptr);
    }

    boost::asio::any_io_executor executor_;
    std::string shown_;
    std::chrono::milliseconds within_, answer_within_;
    done_type done_;
    boost::asio::steady_timer timer_;
    std::shared_ptr<postgres_link> link_;
    bool finished_ = false;
};

}  // namespace

void postgres_async_connect(boost::asio::any_io_executor executor, const postgres_options& options,
                            asio::completion<std::unique_ptr<sql::async_sql_connection>> done) {
    auto run = std::make_shared<connect_run>(executor, options, std::move(done));
    boost::asio::post(executor, [run, conninfo = postgres_conninfo(options)] { run->start(conninfo); });
}

}  // namespace shedlock::providers::detail
