// Opening a non-blocking connection: PQconnectStart, then PQconnectPoll each time the socket is
// ready as libpq asked, under our own connect timeout; a host name is resolved by Asio first.
#include "../postgres_conninfo.hpp"
#include "../postgres_error.hpp"
#include "../postgres_pooler.hpp"
#include "postgres_async_connection.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <vector>

namespace shedlock::providers::detail {
namespace {

/// libpq's default prints notices on stderr; the blocking connection (libpqxx) drops them too.
void drop_notice(void*, const char*) {}

/// Once connected: notices are dropped, but one that says a commit stopped waiting for the
/// synchronous standby marks the session (its statement then fails, postgres_statement.cpp).
void note_notice(void* session, const char* message) {
    if (cancels_synchronous_wait(message)) static_cast<postgres_session*>(session)->unconfirmed_commit = true;
}

class connect_run : public std::enable_shared_from_this<connect_run> {
public:
    using done_type = asio::completion<std::unique_ptr<sql::async_sql_connection>>;

    connect_run(boost::asio::any_io_executor executor, const postgres_options& options, done_type done)
        : executor_(std::move(executor)), options_(options), shown_(options.redacted_uri()),
          within_(connect_within(options.connect_timeout)), answer_within_(options.statement_timeout + within_),
          done_(std::move(done)), timer_(executor_), resolver_(executor_) {}

    /// Runs on the executor (posted by postgres_async_connect).
    void start() {
        timer_.expires_after(within_);
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec && !self->finished_) self->fail_timeout();
        });
        if (!needs_resolving(options_.host)) return start_libpq();
        // libpq would resolve the name inside PQconnectStart, blocking the executor's thread:
        // Asio's resolver does it on a thread of its own, and libpq gets the addresses.
        resolver_.async_resolve(options_.host, std::to_string(options_.port),
                                [self = shared_from_this()](boost::system::error_code ec,
                                                            boost::asio::ip::tcp::resolver::results_type found) {
                                    if (self->finished_) return;
                                    if (ec || found.empty()) return self->fail_resolve(ec);
                                    self->resolve_to(found);
                                    self->start_libpq();
                                });
    }

private:
    /// connect_timeout=0 is libpq's "wait for ever", which the blocking connection turns into
    /// libpq's floor of 1 s: the same here, instead of a timer that fails every connect at once.
    static std::chrono::milliseconds connect_within(std::chrono::milliseconds configured) {
        return configured > std::chrono::milliseconds::zero() ? configured : std::chrono::seconds(1);
    }

    /// A name, not an address nor a Unix socket directory (nor libpq's comma-separated list).
    static bool needs_resolving(const std::string& host) {
        boost::system::error_code ec;
        boost::asio::ip::make_address(host, ec);
        return ec && !host.empty() && host.front() != '/' && host.find(',') == std::string::npos;
    }

    /// `host` repeated once per address (libpq pairs the lists; the name still serves TLS's
    /// verify-full and the messages) and `hostaddr` with the addresses, tried in order.
    void resolve_to(const boost::asio::ip::tcp::resolver::results_type& found) {
        std::vector<std::string> seen;
        std::string hosts, addresses;
        for (const auto& entry : found) {
            const auto address = entry.endpoint().address().to_string();
            if (seen.size() == 8 || std::find(seen.begin(), seen.end(), address) != seen.end()) continue;
            seen.push_back(address);
            hosts += (hosts.empty() ? "" : ",") + options_.host;
            addresses += (addresses.empty() ? "" : ",") + address;
        }
        resolved_hosts_ = hosts;
        resolved_addresses_ = addresses;
    }

    std::string conninfo() const {
        if (resolved_addresses_.empty()) return postgres_conninfo(options_, options_sent_);
        auto with = options_;
        with.host = resolved_hosts_;
        return postgres_conninfo(with, options_sent_) + " hostaddr='" + resolved_addresses_ + "'";
    }

    void start_libpq() {
        PGconn* conn = PQconnectStart(conninfo().c_str());
        if (!conn) return fail(postgres_error(postgres_failure::connection, "out of memory", "", shown_, false));
        link_ = std::make_shared<postgres_link>(executor_, conn);
        if (PQstatus(conn) == CONNECTION_BAD) return fail_libpq();
        PQsetNoticeProcessor(conn, drop_notice, nullptr);
        step(PGRES_POLLING_WRITING);  // libpq's documented first state
    }

    void fail_resolve(const boost::system::error_code& ec) {
        fail(postgres_error(postgres_failure::connection,
                            "could not translate host name \"" + options_.host + "\" to address: " +
                                (ec ? ec.message() : std::string("no address")),
                            "", shown_, false));
    }

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
        auto session = std::make_shared<postgres_session>();
        session->link = link_;
        session->shown = shown_;
        session->answer_within = answer_within_;
        // The session owns the link and so the PGconn: it outlives every notice of the connection.
        PQsetNoticeProcessor(link_->get(), note_notice, session.get());
        if (options_.pooler == postgres_options::pooler_kind::none) return hand_out(std::move(session));
        // The probe runs under the connect timer (still armed): a pooler that never answers it
        // fails the connect as a server that never answers the startup would.
        run_postgres_statement(session, pooler_probe_sql, {},
                               [self = shared_from_this(), session](std::exception_ptr error, sql::sql_result probe) {
                                   if (self->finished_) return;
                                   if (error) return self->fail_probe(error);
                                   try {
                                       session->unnamed_statements =
                                           pooled_after_probe(self->options_, self->options_sent_,
                                                              PQbackendPID(self->link_->get()), probe, self->shown_);
                                   } catch (const storage_error& e) {
                                       return self->fail(e);
                                   }
                                   self->hand_out(session);
                               });
    }

    void fail_probe(std::exception_ptr error) {
        try {
            std::rethrow_exception(error);
        } catch (const storage_error& e) {
            return fail(probe_failure(e, shown_));
        } catch (...) {
            return fail_with(std::current_exception());
        }
    }

    void hand_out(std::shared_ptr<postgres_session> session) {
        finished_ = true;
        timer_.cancel();
        auto done = std::move(done_);
        done(nullptr, std::make_unique<postgres_async_connection>(std::move(session)));
    }

    void fail_libpq() {
        const std::string message = PQerrorMessage(link_->get());
        if (options_sent_ && retries_without_startup_options(options_, message)) {
            // A pooler that does not know `options` (PgBouncer's defaults): once more without.
            options_sent_ = false;
            link_->close();
            return start_libpq();
        }
        fail(postgres_error(postgres_failure::connection, message, "", shown_, false));
    }

    void fail_timeout() {
        fail(storage_error(storage_category::unavailable, retry_advice::safe,
                           "PostgreSQL " + shown_ + ": no connection within " + postgres_seconds_text(within_) +
                               " (connect_timeout); is the server running and reachable?"));
    }

    void fail(const storage_error& e) { fail_with(std::make_exception_ptr(e)); }

    void fail_with(std::exception_ptr error) {
        if (finished_) return;
        finished_ = true;
        timer_.cancel();
        resolver_.cancel();
        if (link_) link_->close();
        auto done = std::move(done_);
        done(std::move(error), nullptr);
    }

    boost::asio::any_io_executor executor_;
    postgres_options options_;  // with the password: only ever given to libpq
    std::string shown_;
    std::chrono::milliseconds within_, answer_within_;
    done_type done_;
    boost::asio::steady_timer timer_;
    boost::asio::ip::tcp::resolver resolver_;
    std::shared_ptr<postgres_link> link_;
    std::string resolved_hosts_, resolved_addresses_;  // after Asio resolved a name: libpq's host and hostaddr
    bool options_sent_ = sends_startup_options(options_);
    bool finished_ = false;
};

}  // namespace

void postgres_async_connect(boost::asio::any_io_executor executor, const postgres_options& options,
                            asio::completion<std::unique_ptr<sql::async_sql_connection>> done) {
    auto run = std::make_shared<connect_run>(executor, options, std::move(done));
    boost::asio::post(executor, [run] { run->start(); });
}

}  // namespace shedlock::providers::detail
