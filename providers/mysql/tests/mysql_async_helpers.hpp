#pragma once
// Driving non-blocking MariaDB connections from a test: one io_context on the test's thread,
// run until the operations started on it are done.
#include "mysql_test_server.hpp"

#include <shedlock/asio/error.hpp>
#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_async.hpp>

#include <boost/asio/io_context.hpp>

#include <catch2/catch.hpp>

#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace shedlock::test::mysql_async {

using connection = providers::sql::async_sql_connection;
using providers::sql::sql_param;
using providers::sql::sql_result;

inline providers::mysql_options options(const std::string& query = "") {
    const std::string base = mysql_server::uri();
    const char join = base.find('?') == std::string::npos ? '?' : '&';
    return providers::mysql_options::from_uri(parse_provider_uri(query.empty() ? base : base + join + query));
}

/// What an operation completed with.
template <typename T>
struct outcome {
    bool completed = false;
    std::exception_ptr failure;
    T value{};

    /// The failure, which must be a storage_error.
    storage_error error() const {
        REQUIRE(failure);
        try {
            std::rethrow_exception(failure);
        } catch (const storage_error& e) {
            return e;
        } catch (const std::exception& e) {
            FAIL("not a storage_error: " << e.what());
        }
        throw std::logic_error("unreachable");
    }
};

/// Starts a connect on `io`; `out` is filled when it completes.
inline void start_connect(boost::asio::io_context& io, const providers::mysql_options& o,
                          outcome<std::unique_ptr<connection>>& out) {
    auto done = [&out](std::exception_ptr e, std::unique_ptr<connection> c) {
        out.completed = true;
        out.failure = e;
        out.value = std::move(c);
    };
    providers::mysql_async_connections(o)(io.get_executor(), std::move(done));
}

/// Connects, running `io` until done; REQUIREs success.
inline std::unique_ptr<connection> connect(boost::asio::io_context& io, const providers::mysql_options& o = options()) {
    outcome<std::unique_ptr<connection>> out;
    start_connect(io, o, out);
    io.restart();
    io.run();
    REQUIRE(out.completed);
    if (out.failure) FAIL(shedlock::asio::failure_message(out.failure));
    return std::move(out.value);
}

inline void start_execute(connection& c, const std::string& sql, std::vector<sql_param> params,
                          outcome<sql_result>& out) {
    c.async_execute(sql, std::move(params), false, [&out](std::exception_ptr e, sql_result r) {
        out.completed = true;
        out.failure = e;
        out.value = std::move(r);
    });
}

/// Runs one statement, running `io` until it completes.
inline outcome<sql_result> execute(boost::asio::io_context& io, connection& c, const std::string& sql,
                                   std::vector<sql_param> params = {}) {
    outcome<sql_result> out;
    start_execute(c, sql, std::move(params), out);
    io.restart();
    io.run();
    REQUIRE(out.completed);
    return out;
}

/// As execute; REQUIREs success and returns the result.
inline sql_result run(boost::asio::io_context& io, connection& c, const std::string& sql,
                      std::vector<sql_param> params = {}) {
    auto out = execute(io, c, sql, std::move(params));
    if (out.failure) FAIL(shedlock::asio::failure_message(out.failure));
    return std::move(out.value);
}

/// The one value of a one-row, one-column result.
inline std::string single(const sql_result& r) {
    REQUIRE(r.rows.size() == 1);
    REQUIRE(r.rows[0].size() == 1);
    REQUIRE(r.rows[0][0]);
    return *r.rows[0][0];
}

}  // namespace shedlock::test::mysql_async
