// Statements named after their text (postgres_prepared.hpp): the name, the rows of a result, and
// the blocking course Bind -> (Parse+Bind in one pipeline) -> Bind.
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
/// failed step (Parse's, when the others were skipped), or the last step's result.
result_ptr pipeline_outcome(PGconn* conn) {
    result_ptr error, last;
    for (int empty = 0; empty < 3;) {  // two steps, each ended by a null; the Sync's result after
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

/// Parse, Bind and Execute in one pipeline with one Sync: one round trip, on one server
/// connection even behind a transaction pooler (it switches only after the Sync's answer).
result_ptr parse_bind_and_execute(PGconn* conn, const std::string& name, const std::string& sql,
                                  const std::vector<const char*>& values) {
    const int n = static_cast<int>(values.size());
    if (!PQenterPipelineMode(conn) || !PQsendPrepare(conn, name.c_str(), sql.c_str(), n, nullptr) ||
        !PQsendQueryPrepared(conn, name.c_str(), n, values.data(), nullptr, nullptr, 0) || !PQpipelineSync(conn)) {
        const std::string why = PQerrorMessage(conn);
        while (PQstatus(conn) != CONNECTION_BAD && result_ptr(PQgetResult(conn))) {}
        PQexitPipelineMode(conn);
        throw pqxx::broken_connection(why);
    }
    return pipeline_outcome(conn);
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

sql::sql_result run_prepared_blocking(PGconn* conn, const std::string& sql, const std::vector<std::string>& values,
                                      bool bind_first) {
    if (!conn) throw pqxx::broken_connection("the connection is closed");
    const std::string name = statement_name_for(sql);
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& v : values) pointers.push_back(v.c_str());
    bool parse = !bind_first;
    for (int attempt = 0; attempt < prepared_statement_attempts; ++attempt) {
        auto r = parse ? parse_bind_and_execute(conn, name, sql, pointers) : bind_and_execute(conn, name, pointers);
        if (!is_error(r.get())) return postgres_rows(r.get());
        const std::string state = sqlstate_of(r.get());
        // Neither error ran anything: the statement was skipped up to the Sync.
        if (state == no_such_statement && !parse) { parse = true; continue; }
        if (state == statement_exists && parse) { parse = false; continue; }
        throw_refused(conn, r.get(), sql);
    }
    // The server connections changed under every attempt (a pooler in statement pooling with
    // many of them): this once, the unnamed statement, which any server connection takes.
    result_ptr r(PQexecParams(conn, sql.c_str(), static_cast<int>(pointers.size()), nullptr, pointers.data(), nullptr,
                              nullptr, 0));
    if (!r) throw pqxx::broken_connection(PQerrorMessage(conn));
    if (is_error(r.get())) throw_refused(conn, r.get(), sql);
    return postgres_rows(r.get());
}

}  // namespace shedlock::providers::detail
