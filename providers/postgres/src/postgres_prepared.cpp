// Statements named after their text (postgres_prepared.hpp): the name, the course after an
// error (course_after), the rows of a result, and the blocking course itself.
#include "postgres_prepared.hpp"

#include <pqxx/except>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace shedlock::providers::detail {
namespace {

struct result_free {
    void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using result_ptr = std::unique_ptr<PGresult, result_free>;

bool is_error(const PGresult* r) {
    const auto status = PQresultStatus(r);
    return status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE || status == PGRES_NONFATAL_ERROR;
}

std::string sqlstate_of(const PGresult* r) {
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    return state ? state : "";
}

/// As libpqxx reports it: the server's error with its SQLSTATE, or a connection that broke.
[[noreturn]] void throw_refused(PGconn* conn, const PGresult* error, const std::string& sql) {
    const std::string state = sqlstate_of(error);
    if (state.empty() && PQstatus(conn) == CONNECTION_BAD) throw pqxx::broken_connection(PQerrorMessage(conn));
    throw pqxx::sql_error(error ? PQresultErrorMessage(error) : PQerrorMessage(conn), sql,
                          state.empty() ? nullptr : state.c_str());
}

/// Bind and Execute of `name` (libpq adds Describe and Sync): its result, or its error.
result_ptr bind_and_execute(PGconn* conn, const std::string& name, const std::vector<const char*>& values) {
    result_ptr r(PQexecPrepared(conn, name.c_str(), static_cast<int>(values.size()), values.data(), nullptr, nullptr, 0));
    if (!r) throw pqxx::broken_connection(PQerrorMessage(conn));
    return r;
}

/// Reads a pipeline's results up to its Sync and leaves pipeline mode: the error of its first
/// failed step (the others were skipped), or the last step's result.
result_ptr pipeline_outcome(PGconn* conn, int steps) {
    result_ptr error, last;
    for (int empty = 0; empty <= steps;) {  // each step ended by a null; the Sync's result after
        result_ptr r(PQgetResult(conn));
        if (!r) {
            if (PQstatus(conn) == CONNECTION_BAD) break;
            ++empty;
            continue;
        }
        const auto status = PQresultStatus(r.get());
        if (status == PGRES_PIPELINE_SYNC) break;
        if (status == PGRES_PIPELINE_ABORTED) continue;
        if (is_error(r.get())) {
            if (!error) error = std::move(r);
        } else {
            last = std::move(r);
        }
    }
    if (PQstatus(conn) == CONNECTION_BAD || !PQexitPipelineMode(conn))
        throw pqxx::broken_connection(PQerrorMessage(conn));
    if (error) return error;
    if (!last) throw pqxx::broken_connection(PQerrorMessage(conn));
    return last;
}

/// (DEALLOCATE,) Parse, Bind and Execute in one pipeline with one Sync: one round trip, on one
/// server connection even behind a transaction pooler (it switches only after the Sync's answer).
result_ptr parse_bind_and_execute(PGconn* conn, const std::string& name, const std::string& sql,
                                  const std::vector<const char*>& values, bool deallocate_first) {
    const int n = static_cast<int>(values.size());
    const std::string deallocate = deallocate_statement(name);
    if (!PQenterPipelineMode(conn) ||
        (deallocate_first && !PQsendQueryParams(conn, deallocate.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0)) ||
        !PQsendPrepare(conn, name.c_str(), sql.c_str(), n, nullptr) ||
        !PQsendQueryPrepared(conn, name.c_str(), n, values.data(), nullptr, nullptr, 0) || !PQpipelineSync(conn)) {
        const std::string why = PQerrorMessage(conn);
        while (PQstatus(conn) != CONNECTION_BAD && result_ptr(PQgetResult(conn))) {}
        PQexitPipelineMode(conn);
        throw pqxx::broken_connection(why);
    }
    return pipeline_outcome(conn, deallocate_first ? 3 : 2);
}

}  // namespace

std::string statement_name_for(std::string_view sql) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const unsigned char c : sql) {
        hash ^= c;
        hash *= 1099511628211ULL;
    }
    char hex[17];
    for (int i = 15; i >= 0; --i, hash >>= 4) hex[i] = "0123456789abcdef"[hash & 0xf];
    hex[16] = '\0';
    return "shedlock_" + std::to_string(sql.size()) + "_" + hex;
}

std::string deallocate_statement(const std::string& name) { return "DEALLOCATE \"" + name + "\""; }

std::optional<statement_course> course_after(statement_course failed, std::string_view sqlstate) {
    switch (failed) {
        case statement_course::bind:
            if (sqlstate == no_such_statement) return statement_course::parse;
            if (sqlstate == plan_result_changed) return statement_course::reprepare;
            return std::nullopt;
        case statement_course::parse:
            if (sqlstate == statement_exists) return statement_course::bind;
            return std::nullopt;
        case statement_course::reprepare:
            if (sqlstate == no_such_statement) return statement_course::parse;  // gone meanwhile
            if (sqlstate == statement_exists) return statement_course::bind;
            return std::nullopt;
    }
    return std::nullopt;
}

sql::sql_result postgres_rows(const PGresult* r) {
    sql::sql_result out;
    if (!r) return out;
    const char* affected = PQcmdTuples(const_cast<PGresult*>(r));
    if (affected && *affected) {
        // libpq checked the digits, not their number: a count past int64 is the server's fault.
        const auto end = affected + std::strlen(affected);
        const auto read = std::from_chars(affected, end, out.affected_rows);
        if (read.ec != std::errc() || read.ptr != end)
            throw std::runtime_error("the server reported \"" + std::string(PQcmdStatus(const_cast<PGresult*>(r))) +
                                     "\", whose row count is no 64-bit number; is it a PostgreSQL server?");
    }
    const int rows = PQntuples(r), columns = PQnfields(r);
    out.rows.reserve(static_cast<std::size_t>(rows));
    for (int i = 0; i < rows; ++i) {
        auto& row = out.rows.emplace_back();
        row.reserve(static_cast<std::size_t>(columns));
        for (int c = 0; c < columns; ++c)
            row.push_back(PQgetisnull(r, i, c) ? std::nullopt : std::optional<std::string>(PQgetvalue(r, i, c)));
    }
    return out;
}

std::optional<statement_course> statement_guess::first_course(std::string_view sql) const {
    if (pooled_ && lost_in_a_row_ >= misses_before_unnamed) return std::nullopt;
    if (ran_.count(sql) != 0) return statement_course::bind;
    if (!pooled_ || parse_new_) return statement_course::parse;
    return statement_course::bind;
}

void statement_guess::learn(std::string_view sql, statement_course course, std::string_view sqlstate) {
    if (course == statement_course::bind && sqlstate == no_such_statement) {
        if (ran_.count(sql) != 0) ++lost_in_a_row_;
        parse_new_ = true;
        return;
    }
    if (course != statement_course::bind && sqlstate == statement_exists) {
        parse_new_ = false;  // the server connection had it: statements outlive their clients
        return;
    }
    if (course == statement_course::bind && sqlstate.empty()) lost_in_a_row_ = 0;
    ran_.emplace(sql);
}

sql::sql_result run_prepared_blocking(PGconn* conn, const std::string& sql, const std::vector<std::string>& values,
                                      statement_guess& guess) {
    if (!conn) throw pqxx::broken_connection("the connection is closed");
    const std::string name = statement_name_for(sql);
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& v : values) pointers.push_back(v.c_str());
    auto course = guess.first_course(sql);
    for (int attempt = 0; course && attempt < prepared_statement_attempts; ++attempt) {
        auto r = *course == statement_course::bind
                     ? bind_and_execute(conn, name, pointers)
                     : parse_bind_and_execute(conn, name, sql, pointers, *course == statement_course::reprepare);
        const std::string state = is_error(r.get()) ? sqlstate_of(r.get()) : std::string();
        guess.learn(sql, *course, state);
        if (!is_error(r.get())) return postgres_rows(r.get());
        course = course_after(*course, state);
        if (!course) throw_refused(conn, r.get(), sql);
    }
    // The guess says statements do not stay, or the server connections changed under every
    // attempt (a statement pooler with many of them): the unnamed statement, which any takes.
    result_ptr r(PQexecParams(conn, sql.c_str(), static_cast<int>(pointers.size()), nullptr, pointers.data(), nullptr,
                              nullptr, 0));
    if (!r) throw pqxx::broken_connection(PQerrorMessage(conn));
    if (is_error(r.get())) throw_refused(conn, r.get(), sql);
    return postgres_rows(r.get());
}

}  // namespace shedlock::providers::detail
