// One statement on a non-blocking connection: idle check, send (Bind, or Parse+Bind in one
// pipeline, ../postgres_prepared.hpp), flush, read every result; a client-side deadline closes a
// connection whose server stopped answering.
#include "../postgres_error.hpp"
#include "postgres_async_connection.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <poll.h>

namespace shedlock::providers::detail {
namespace {

struct pg_result_free {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using pg_result_ptr = std::unique_ptr<PGresult, pg_result_free>;

class statement_run : public std::enable_shared_from_this<statement_run> {
public:
    statement_run(std::shared_ptr<postgres_session> s, std::string sql, std::vector<std::string> values,
                  asio::completion<sql::sql_result> done)
        : session_(std::move(s)), sql_(std::move(sql)), values_(std::move(values)), done_(std::move(done)),
          deadline_(session_->link->executor()) {}

    void start() {
        if (!idle_and_open()) return;
        deadline_.expires_after(session_->answer_within);
        deadline_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (ec || self->finished_) return;
            self->session_->broken = true;
            self->session_->link->close();
            self->fail(std::make_exception_ptr(postgres_no_answer(self->session_->shown, self->session_->answer_within)));
        });
        session_->unconfirmed_commit = false;
        if (!values_.empty()) {
            name_ = statement_name_for(sql_);
            course_ = session_->guess.first_course(sql_);
        }
        send();
    }

private:
    PGconn* conn() const { return session_->link->get(); }

    /// Like the blocking connection's check: a connection the server closed while it idled
    /// (restart, terminated session) fails safe here, before anything is sent. A notice that came
    /// meanwhile (the FATAL of a terminated session is one) is dropped.
    bool idle_and_open() {
        if (!session_->link->open()) return fail_unsent("the connection is closed");
        pollfd idle{PQsocket(conn()), POLLIN, 0};
        for (int round = 0; round < 4 && idle.fd >= 0 && ::poll(&idle, 1, 0) > 0; ++round) {
            if (!PQconsumeInput(conn())) return fail_unsent(closed_while_idle());
            while (PGnotify* n = PQnotifies(conn())) PQfreemem(n);
        }
        if (PQstatus(conn()) == CONNECTION_BAD) return fail_unsent(closed_while_idle());
        return true;
    }

    std::string closed_while_idle() const {
        std::string why = PQerrorMessage(conn());
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        return "the connection was closed while it idled (" + why + ")";
    }

    bool fail_unsent(const std::string& why) {
        session_->broken = true;
        session_->link->close();
        fail(std::make_exception_ptr(storage_error(storage_category::unavailable, retry_advice::safe,
                                                   "PostgreSQL " + session_->shown + ": " + why +
                                                       "; the statement was not sent")));
        return false;
    }

    void send() {
        std::vector<const char*> values;
        values.reserve(values_.size());
        for (const auto& v : values_) values.push_back(v.c_str());
        const int n = static_cast<int>(values.size());
        sent_ = true;
        int ok = 0;
        if (values_.empty()) {
            ok = PQsendQuery(conn(), sql_.c_str());
        } else if (!course_ || attempts_ >= prepared_statement_attempts) {
            // The guess says statements do not stay, or the server connections changed under
            // every attempt (a statement pooler with many of them): the unnamed statement.
            course_.reset();
            ok = PQsendQueryParams(conn(), sql_.c_str(), n, nullptr, values.data(), nullptr, nullptr, 0);
        } else if (*course_ != statement_course::bind) {
            // One Sync for all: one server connection even behind a transaction pooler.
            const bool deallocate = *course_ == statement_course::reprepare;
            const std::string deallocation = deallocate_statement(name_);
            pipeline_ = true;
            pipeline_steps_ = deallocate ? 3 : 2;
            ok = PQenterPipelineMode(conn()) &&
                 (!deallocate ||
                  PQsendQueryParams(conn(), deallocation.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)) &&
                 PQsendPrepare(conn(), name_.c_str(), sql_.c_str(), n, nullptr) &&
                 PQsendQueryPrepared(conn(), name_.c_str(), n, values.data(), nullptr, nullptr, 0) &&
                 PQpipelineSync(conn());
        } else {
            ok = PQsendQueryPrepared(conn(), name_.c_str(), n, values.data(), nullptr, nullptr, 0);
        }
        ++attempts_;
        if (!ok) return fail_connection();
        flush();
    }

    void flush() {
        const int pending = PQflush(conn());
        if (pending < 0) return fail_connection();
        if (pending == 0) return read();
        session_->link->wait(true, [self = shared_from_this()](boost::system::error_code ec) {
            if (self->finished_) return;
            if (ec || !PQconsumeInput(self->conn())) return self->fail_connection();
            self->flush();
        });
    }

    void read() {
        session_->link->wait(false, [self = shared_from_this()](boost::system::error_code ec) {
            if (self->finished_) return;
            if (ec || !PQconsumeInput(self->conn())) return self->fail_connection();
            self->take_results();
        });
    }

    void take_results() {
        while (!PQisBusy(conn())) {
            pg_result_ptr r(PQgetResult(conn()));
            if (!r) {
                // In a pipeline a null ends each step; its Sync's result ends the whole.
                if (!pipeline_) return results_done();
                if (++pipeline_nulls_ > pipeline_steps_ || PQstatus(conn()) == CONNECTION_BAD) return fail_connection();
                continue;
            }
            const auto status = PQresultStatus(r.get());
            if (status == PGRES_PIPELINE_SYNC) {
                pipeline_ = false;
                pipeline_nulls_ = 0;
                if (!PQexitPipelineMode(conn())) return fail_connection();
                return results_done();
            }
            if (status == PGRES_PIPELINE_ABORTED) continue;  // skipped after the Parse failed
            // In a COPY state libpq hands out a new COPY result on every call, never null: no
            // lock statement asks for COPY, so a server that starts one is not followed.
            if (status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH)
                return fail_with(postgres_failure::connection,
                                 "the server answered with COPY, which no lock statement asks for; is it a "
                                 "PostgreSQL server, or is something in between rewriting the answers?",
                                 "");
            if (status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE || status == PGRES_NONFATAL_ERROR) {
                if (!error_) error_ = std::move(r);
            } else {
                last_ = std::move(r);
            }
        }
        read();
    }

    void results_done() {
        const char* state = error_ ? PQresultErrorField(error_.get(), PG_DIAG_SQLSTATE) : nullptr;
        if (course_) session_->guess.learn(sql_, *course_, state ? state : "");
        if (error_ && retried_after(state)) return;
        if (error_) return fail_refused();
        if (session_->unconfirmed_commit) return fail(std::make_exception_ptr(unconfirmed_commit(session_->shown)));
        sql::sql_result rows;
        try {
            rows = postgres_rows(last_.get());
        } catch (const std::exception& e) {
            return fail_with(postgres_failure::other, e.what(), "");
        }
        finished_ = true;
        deadline_.cancel();
        auto done = std::move(done_);
        done(nullptr, std::move(rows));
    }

    /// A Bind of a name the server connection lacks (26000) or whose table changed (0A000), a
    /// Parse of one it has (42P05): each rolled back, so the next course is sent
    /// (course_after), up to prepared_statement_attempts, then the unnamed statement.
    bool retried_after(const char* state) {
        if (!state || !course_) return false;
        const auto next = course_after(*course_, state);
        if (!next) return false;
        course_ = next;
        error_.reset();
        last_.reset();
        send();
        return true;
    }

    void fail_refused() {
        const char* state = PQresultErrorField(error_.get(), PG_DIAG_SQLSTATE);
        const bool lost = !state && PQstatus(conn()) == CONNECTION_BAD;
        fail_with(lost ? postgres_failure::connection : postgres_failure::refused, PQresultErrorMessage(error_.get()),
                  state ? state : "");
    }

    /// libpq failed (the connection broke, or the deadline closed it). An error the server sent
    /// first (57P01: terminated by an administrator) is the better explanation.
    void fail_connection() {
        if (error_) return fail_refused();
        fail_with(postgres_failure::connection, session_->link->open() ? PQerrorMessage(conn()) : "the connection was closed",
                  "");
    }

    void fail_with(postgres_failure kind, const std::string& message, const std::string& state) {
        // PostgreSQL 14+ reports in_hot_standby at connect and on every change: no round trip.
        const char* hot_standby = session_->link->open() ? PQparameterStatus(conn(), "in_hot_standby") : nullptr;
        if (refused_as_read_only(state) && hot_standby && std::string(hot_standby) == "off")
            return fail(std::make_exception_ptr(read_only_primary(message, session_->shown, session_->user)));
        auto e = postgres_error(kind, message, state, session_->shown, sent_);
        if (e.category() == storage_category::unavailable) {
            session_->broken = true;
            session_->link->close();
        }
        fail(std::make_exception_ptr(e));
    }

    void fail(std::exception_ptr e) {
        if (finished_) return;
        finished_ = true;
        deadline_.cancel();
        auto done = std::move(done_);
        done(std::move(e), {});
    }

    std::shared_ptr<postgres_session> session_;
    std::string sql_;
    std::vector<std::string> values_;
    asio::completion<sql::sql_result> done_;
    boost::asio::steady_timer deadline_;
    std::string name_;  // the prepared statement's, empty for a simple query
    std::optional<statement_course> course_;  // of the named statement sent; none: unnamed or simple
    bool pipeline_ = false;  // in libpq's pipeline mode until its Sync's result
    int pipeline_steps_ = 0, pipeline_nulls_ = 0, attempts_ = 0;
    bool sent_ = false, finished_ = false;
    pg_result_ptr last_, error_;
};

}  // namespace

void run_postgres_statement(std::shared_ptr<postgres_session> session, std::string sql, std::vector<std::string> values,
                            asio::completion<sql::sql_result> done) {
    auto run = std::make_shared<statement_run>(session, std::move(sql), std::move(values), std::move(done));
    boost::asio::post(session->link->executor(), [run] { run->start(); });
}

}  // namespace shedlock::providers::detail
