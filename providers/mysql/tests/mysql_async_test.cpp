// The non-blocking MariaDB connection (shedlock::mysql_asio) against the real server: statements
// with parameters, rows and counters, many statements on one thread, and completion rules.
#include "mysql_async_helpers.hpp"

#include <boost/asio/post.hpp>

#include <deque>
#include <thread>

namespace shedlock::test::mysql_async {
namespace {

TEST_CASE("mysql async: parameters travel bound and rows come back as text") {
    boost::asio::io_context io;
    auto c = connect(io);
    const std::string tricky = "it's a \"quote\" \\ back'slash; DROP TABLE x -- \xC3\xA9";
    const auto r = run(io, *c, "SELECT ?, ?, CONCAT(?, '!'), NULL", {sql_param{std::int64_t{-42}}, tricky, tricky});
    REQUIRE(r.rows.size() == 1);
    REQUIRE(r.rows[0].size() == 4);
    CHECK(r.rows[0][0] == "-42");
    CHECK(r.rows[0][1] == tricky);
    CHECK(r.rows[0][2] == tricky + "!");
    CHECK_FALSE(r.rows[0][3].has_value());
    // A value longer than the row buffer is read whole.
    CHECK(single(run(io, *c, "SELECT REPEAT(?, 3000)", {std::string("ab")})).size() == 6000);
    // Parameterless statements go as text, with their rows the same way.
    CHECK(single(run(io, *c, "SELECT 'text' ;\n")) == "text");
}

TEST_CASE("mysql async: affected rows count matched rows and LAST_INSERT_ID comes back") {
    boost::asio::io_context io;
    auto c = connect(io);
    run(io, *c, "CREATE TEMPORARY TABLE async_t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(255))");
    auto r = run(io, *c, "INSERT INTO async_t (v) VALUES (?)", {std::string("one")});
    CHECK(r.affected_rows == 1);
    CHECK(r.last_insert_id == 1);
    r = run(io, *c, "INSERT INTO async_t (id, v) VALUES (LAST_INSERT_ID(?), ?)",
            {std::int64_t{77}, std::string("two")});
    CHECK(r.last_insert_id == 77);
    // An UPDATE writing the same value still counts its matched row (as the blocking connection).
    r = run(io, *c, "UPDATE async_t SET v = ? WHERE id = ?", {std::string("one"), std::int64_t{1}});
    CHECK(r.affected_rows == 1);
    r = run(io, *c, "SELECT v FROM async_t WHERE id >= ? ORDER BY id", {std::int64_t{0}});
    REQUIRE(r.rows.size() == 2);
    CHECK(r.rows[1][0] == "two");
    // The session is set up as the blocking one: UTC.
    CHECK(single(run(io, *c, "SELECT @@session.time_zone")) == "+00:00");
}

TEST_CASE("mysql async: a server error leaves the connection usable") {
    boost::asio::io_context io;
    auto c = connect(io);
    auto out = execute(io, *c, "SELECT nope FROM no_such_table WHERE id = ?", {std::int64_t{1}});
    CHECK(out.error().category() == storage_category::missing_schema);
    CHECK(c->usable());
    CHECK(single(run(io, *c, "SELECT ?", {std::int64_t{5}})) == "5");
}

TEST_CASE("mysql async: completions never run inside the call") {
    boost::asio::io_context io;
    outcome<std::unique_ptr<connection>> opened;
    start_connect(io, options(), opened);
    CHECK_FALSE(opened.completed);
    io.run();
    REQUIRE(opened.completed);
    REQUIRE_FALSE(opened.failure);
    outcome<sql_result> out;
    start_execute(*opened.value, "SELECT ?", {std::int64_t{1}}, out);
    CHECK_FALSE(out.completed);
    io.restart();
    io.run();
    CHECK(out.completed);
}

TEST_CASE("mysql async: 64 statements queued over 4 connections all complete on one thread") {
    boost::asio::io_context io;
    std::vector<std::unique_ptr<connection>> pool;
    for (int i = 0; i < 4; ++i) pool.push_back(connect(io));
    // Each connection runs one statement at a time: the rest wait in its queue.
    std::vector<std::deque<int>> queues(pool.size());
    for (int i = 0; i < 64; ++i) queues[static_cast<std::size_t>(i) % pool.size()].push_back(i);
    std::vector<std::string> answers(64);
    const auto test_thread = std::this_thread::get_id();
    int on_other_threads = 0;
    std::function<void(std::size_t)> next = [&](std::size_t k) {
        if (queues[k].empty()) return;
        const int i = queues[k].front();
        queues[k].pop_front();
        pool[k]->async_execute("SELECT ? * 2, SLEEP(0.01)", {std::int64_t{i}}, false,
                               [&, k, i](std::exception_ptr e, sql_result r) {
                                   if (std::this_thread::get_id() != test_thread) ++on_other_threads;
                                   answers[static_cast<std::size_t>(i)] = e ? shedlock::asio::failure_message(e)
                                                                            : r.rows.at(0).at(0).value_or("NULL");
                                   next(k);
                               });
    };
    for (std::size_t k = 0; k < pool.size(); ++k) next(k);
    io.restart();
    io.run();
    CHECK(on_other_threads == 0);
    for (int i = 0; i < 64; ++i) CHECK(answers[static_cast<std::size_t>(i)] == std::to_string(2 * i));
    for (const auto& c : pool) CHECK(c->usable());
}

TEST_CASE("mysql async: TLS as ssl_mode demands, the handshake without blocking") {
    const std::string dir = required_env("SHEDLOCK_TEST_MARIADB_TLS_DIR", "providers/mysql/server.sh");
    boost::asio::io_context io;
    auto c = connect(io, options("ssl_mode=VERIFY_CA&ssl_ca=" + dir + "/ca.crt"));
    const auto r = run(io, *c, "SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    REQUIRE(r.rows.size() == 1);
    CHECK_FALSE(r.rows[0].at(1).value_or("").empty());
    CHECK(single(run(io, *c, "SELECT ?", {std::string("over TLS")})) == "over TLS");
    // A CA that did not sign the server's certificate: refused, as the blocking connection does.
    outcome<std::unique_ptr<connection>> refused;
    start_connect(io, options("ssl_mode=VERIFY_CA&ssl_ca=" + dir + "/other-ca.crt"), refused);
    io.restart();
    io.run();
    CHECK(refused.error().category() == storage_category::access_denied);
}

}  // namespace
}  // namespace shedlock::test::mysql_async
