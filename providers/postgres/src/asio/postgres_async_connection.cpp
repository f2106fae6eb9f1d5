// The connection's own part: parameters as text; the statement's course is in
// postgres_statement.cpp, the rows of a result in ../postgres_prepared.cpp.
#include "postgres_async_connection.hpp"

namespace shedlock::providers::detail {

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
