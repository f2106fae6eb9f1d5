// The connection's own part: parameters as text, results as rows; the statement's course is in
// postgres_statement.cpp.
#include "postgres_async_connection.hpp"

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace shedlock::providers::detail {

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

void postgres_async_connection::async_execute(const std::string& sql, std::vector<sql::sql_param> params, bool,
                                              asio::completion<sql::sql_result> done) {
    std::vector<std::string> values;
    values.reserve(params.size());
    for (auto& p : params)
        values.push_back(std::holds_alternative<std::int64_t>(p) ? std::to_string(std::get<std::int64_t>(p))
                                                                 : std::move(std::get<std::string>(p)));
    run_postgres_statement(session_, sql, std::move(values), std::move(done));
}

}  // namespace shedlock::providers::detail
