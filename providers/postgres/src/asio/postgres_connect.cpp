// Opening a non-blocking connection: PQconnectStart, then PQconnectPoll each time the socket is
// ready as libpq asked, under our own connect timeout; a host name is resolved by Asio first.
#include "../postgres_conninfo.hpp"
#include "../postgres_error.hpp"
#include "../postgres_pooler.hpp"
#include "../postgres_servers.hpp"
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

/// One connect: the servers of the URI in order, each with an equal share of what is left of
/// connect_timeout (a server that never answers does not use up the others' time), then the
/// probe within what is left. libpq checks target_session_attrs on each (PostgreSQL 14+ reports
/// in_hot_standby and default_transaction_read_only at startup: no extra round trip).
class connect_run : public std::enable_shared_from_this<connect_run> {
public:
    using done_type = asio::completion<std::unique_ptr<sql::async_sql_connection>>;

    connect_run(boost::asio::any_io_executor executor, const postgres_options& options, done_type done)
        : executor_(std::move(executor)), options_(options), shown_(options.redacted_uri()), budget_(options),
          answer_within_(options.statement_timeout + budget_.total()), done_(std::move(done)), timer_(executor_),
          resolver_(executor_) {
        servers_ = options.servers;
        if (servers_.empty()) servers_.push_back({options.host, options.port});
    }

    /// Runs on the executor (posted by postgres_async_connect).
    void start() { try_server(); }

private:
    /// A name, not an address nor a Unix socket directory.
    static bool needs_resolving(const std::string& host) {
        boost::system::error_code ec;
        boost::asio::ip::make_address(host, ec);
        return ec && !host.empty() && host.front() != '/';
    }

    const postgres_options::server_address& server() const { return servers_[index_]; }

    std::string server_label() const {
        const auto& s = server();
        return (s.host.find(':') != std::string::npos ? "[" + s.host + "]" : s.host) + ":" + std::to_string(s.port);
    }

    /// Arms the timer for the current step; a step that ends later finds attempt_ moved on.
    void arm(std::chrono::milliseconds within, bool move_on) {
        timer_.expires_after(within);
        timer_.async_wait([self = shared_from_this(), attempt = attempt_, move_on](boost::system::error_code ec) {
            if (ec || self->finished_ || attempt != self->attempt_) return;
            if (!move_on || self->index_ + 1 == self->servers_.size()) return self->fail_timeout();
            self->next_server("no connection within " + postgres_seconds_text(self->share_));
        });
    }

    void try_server() {
        ++attempt_;
        share_ = budget_.per_server(servers_.size() - index_);
        if (share_ == std::chrono::milliseconds::zero()) return fail_timeout();
        arm(share_, true);
        resolved_hosts_.clear();
        resolved_addresses_.clear();
        if (!needs_resolving(server().host)) return start_libpq();
        // libpq would resolve the name inside PQconnectStart, blocking the executor's thread:
        // Asio's resolver does it on a thread of its own, and libpq gets the addresses.
        resolver_.async_resolve(server().host, std::to_string(server().port),
                                [self = shared_from_this(), attempt = attempt_](
                                    boost::system::error_code ec, boost::asio::ip::tcp::resolver::results_type found) {
                                    if (self->finished_ || attempt != self->attempt_) return;
                                    if (ec || found.empty())
                                        return self->server_failed("could not translate host name \"" +
                                                                   self->server().host + "\" to address: " +
                                                                   (ec ? ec.message() : std::string("no address")));
                                    self->resolve_to(found);
                                    self->start_libpq();
                                });
    }

    /// `host` repeated once per address (libpq pairs the lists; the name still serves TLS's
    /// verify-full and the messages) and `hostaddr` with the addresses, tried in order.
    void resolve_to(const boost::asio::ip::tcp::resolver::results_type& found) {
        std::vector<std::string> seen;
        for (const auto& entry : found) {
            const auto address = entry.endpoint().address().to_string();
            if (seen.size() == 8 || std::find(seen.begin(), seen.end(), address) != seen.end()) continue;
            seen.push_back(address);
            resolved_hosts_ += (resolved_hosts_.empty() ? "" : ",") + server().host;
            resolved_addresses_ += (resolved_addresses_.empty() ? "" : ",") + address;
        }
    }

    std::string conninfo() const {
        auto one = options_;
        one.servers.clear();
        one.host = resolved_addresses_.empty() ? server().host : resolved_hosts_;
        one.port = server().port;
        const auto info = postgres_conninfo(one, options_sent_, share_);
        return resolved_addresses_.empty() ? info : info + " hostaddr=" + postgres_quoted(resolved_addresses_);
    }

    void start_libpq() {
        PGconn* conn = PQconnectStart(conninfo().c_str());
        if (!conn) return fail(postgres_error(postgres_failure::connection, "out of memory", "", shown_, false));
        link_ = std::make_shared<postgres_link>(executor_, conn);
        if (PQstatus(conn) == CONNECTION_BAD) return fail_libpq();
        PQsetNoticeProcessor(conn, drop_notice, nullptr);
        step(PGRES_POLLING_WRITING);  // libpq's documented first state
    }

    void step(PostgresPollingStatusType status) {
        if (status == PGRES_POLLING_OK) return succeed();
        if (status == PGRES_POLLING_FAILED) return fail_libpq();
        link_->wait(status == PGRES_POLLING_WRITING,
                    [self = shared_from_this(), attempt = attempt_](boost::system::error_code ec) {
                        if (self->finished_ || attempt != self->attempt_) return;
                        if (ec) return self->server_failed(ec.message());
                        self->step(PQconnectPoll(self->link_->get()));
                    });
    }

    void succeed() {
        if (PQsetnonblocking(link_->get(), 1) != 0) return fail_libpq();
        auto session = std::make_shared<postgres_session>();
        session->link = link_;
        session->shown = shown_;
        session->user = options_.user;
        session->answer_within = answer_within_;
        // The session owns the link and so the PGconn: it outlives every notice of the connection.
        PQsetNoticeProcessor(link_->get(), note_notice, session.get());
        if (options_.pooler == postgres_options::pooler_kind::none) return hand_out(std::move(session));
        // The probe runs within what is left of the connect's budget: a pooler that never
        // answers it fails the connect as a server that never answers the startup would.
        ++attempt_;
        arm(budget_.left(), false);
        run_postgres_statement(session, pooler_probe_sql, {},
                               [self = shared_from_this(), session](std::exception_ptr error, sql::sql_result probe) {
                                   if (self->finished_) return;
                                   if (error) return self->fail_probe(error);
                                   try {
                                       session->guess.set_pooled(
                                           pooled_after_probe(self->options_, self->options_sent_,
                                                              PQbackendPID(self->link_->get()), probe, self->shown_));
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
        server_failed(message);
    }

    /// This server did not give a suitable session: the next one, or the end of the list.
    void server_failed(std::string why) {
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        if (servers_.size() == 1)
            return fail(postgres_error(postgres_failure::connection, why, "", shown_, false));
        if (index_ + 1 == servers_.size()) {
            failures_ += "; " + server_label() + ": " + why;
            return fail(postgres_error(postgres_failure::connection,
                                       "no server of " + std::to_string(servers_.size()) + " gave a " +
                                           libpq_target_name(options_.target) + " session (" + failures_.substr(2) + ")",
                                       "", shown_, false));
        }
        next_server(why);
    }

    void next_server(const std::string& why) {
        failures_ += "; " + server_label() + ": " + why;
        if (link_) link_->close();
        resolver_.cancel();
        options_sent_ = sends_startup_options(options_);
        ++index_;
        try_server();
    }

    void fail_timeout() {
        if (failures_.empty()) return fail(budget_.spent(shown_));
        fail(storage_error(budget_.spent(shown_).category(), retry_advice::safe,
                           std::string(budget_.spent(shown_).what()) + " (" + failures_.substr(2) + "; " +
                               server_label() + ": no answer in time)"));
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
    connect_budget budget_;
    std::chrono::milliseconds answer_within_;
    std::chrono::milliseconds share_{};  // the current server's share of the budget
    done_type done_;
    boost::asio::steady_timer timer_;
    boost::asio::ip::tcp::resolver resolver_;
    std::shared_ptr<postgres_link> link_;
    std::vector<postgres_options::server_address> servers_;
    std::size_t index_ = 0;      // the server being tried
    unsigned attempt_ = 0;       // the step the timer and callbacks belong to
    std::string failures_;       // "; host:port: why" per server passed over
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
