// The raw MariaDB floor of bench/async_cycles: Connector/C's non-blocking API
// (mysql_stmt_execute_start/_cont) on Asio, written for this bench (readiness waits on the socket
// and nothing else: no timeouts, no idle checks, no retries), running the provider's own acquire
// and unlock statements, prepared once per connection.
#include "async_cycles_raw.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

#include <boost/asio/posix/stream_descriptor.hpp>

#include <mysql.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <variant>

namespace shedlock::bench {
namespace {

namespace net = boost::asio;
namespace sql = providers::sql;

struct my_loop;

/// One connection, its two prepared statements, one statement in flight at most.
struct my_connection {
    MYSQL* db = nullptr;
    MYSQL_STMT* acquire = nullptr;
    MYSQL_STMT* unlock = nullptr;
    MYSQL_STMT* running = nullptr;
    net::posix::stream_descriptor socket;
    my_loop* job = nullptr;
    int ret = 0;
    explicit my_connection(net::io_context& io) : socket(io) {}
    ~my_connection() {
        boost::system::error_code ignored;
        if (socket.is_open()) {
            socket.cancel(ignored);
            socket.release();  // the connector closes its own socket
        }
        if (acquire) mysql_stmt_close(acquire);
        if (unlock) mysql_stmt_close(unlock);
        if (db) mysql_close(db);
    }
};

struct my_floor {
    std::vector<std::unique_ptr<my_connection>> connections;
    std::vector<my_connection*> idle;
    std::deque<my_loop*> waiting;
    std::vector<std::unique_ptr<my_loop>> loops;
    sql::lock_statement_set statements;
    bench_clock::time_point deadline;
    long cycles = 0, owners = 0;
    int active = 0;
    std::string failure;

    explicit my_floor(sql::lock_statement_set s) : statements(std::move(s)) {}
    void submit(my_loop* loop);
    void run(my_connection& c, my_loop* loop);
    void advance(my_connection& c, int status);
    void finished(my_connection& c, bool ok);
};

/// One name's cycle, its parameters bound as the driver binds them (text, or a 64-bit integer).
struct my_loop {
    my_loop(my_floor* f, lock_configuration c) : floor(f), config(std::move(c)) {}

    my_floor* floor;
    lock_configuration config;
    std::string owner;
    lease held;
    bool acquiring = true;
    std::vector<sql::sql_param> params;
    std::vector<MYSQL_BIND> binds;
    std::vector<unsigned long> lengths;

    void set(const sql::statement& stmt, const sql::slot_values& v) {
        params = sql::bind(stmt, v);
        binds.assign(params.size(), MYSQL_BIND{});
        lengths.assign(params.size(), 0);
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (auto* n = std::get_if<std::int64_t>(&params[i])) {
                binds[i].buffer_type = MYSQL_TYPE_LONGLONG;
                binds[i].buffer = n;
            } else {
                auto& s = std::get<std::string>(params[i]);
                lengths[i] = s.size();
                binds[i].buffer_type = MYSQL_TYPE_STRING;
                binds[i].buffer = s.data();
                binds[i].buffer_length = lengths[i];
                binds[i].length = &lengths[i];
            }
        }
    }

    void start() {
        owner = counter_owner(++floor->owners);
        acquiring = true;
        set(floor->statements.acquire, sql::acquire_values(config, owner, system_clock::instance().now()));
        floor->submit(this);
    }

    void answered(bool ok, long long rows) {
        if (!ok || (acquiring && rows <= 0)) return fail(acquiring ? "acquire" : "unlock");
        if (acquiring) {
            held.name = config.name();
            held.owner = owner;
            acquiring = false;
            set(floor->statements.unlock, sql::unlock_values(held, system_clock::instance().now(), std::chrono::milliseconds{0}));
            return floor->submit(this);
        }
        ++floor->cycles;
        if (bench_clock::now() < floor->deadline && floor->failure.empty()) start();
        else --floor->active;
    }

    void fail(const char* what) {
        if (floor->failure.empty()) floor->failure = std::string("raw MariaDB floor: ") + what + " failed";
        --floor->active;
    }
};

void my_floor::submit(my_loop* loop) {
    if (idle.empty()) return waiting.push_back(loop);
    my_connection* c = idle.back();
    idle.pop_back();
    run(*c, loop);
}

void my_floor::run(my_connection& c, my_loop* loop) {
    c.job = loop;
    c.running = loop->acquiring ? c.acquire : c.unlock;
    if (mysql_stmt_bind_param(c.running, loop->binds.data()) != 0) return finished(c, false);
    advance(c, mysql_stmt_execute_start(&c.ret, c.running));
}

void my_floor::advance(my_connection& c, int status) {
    if (status == 0) return finished(c, c.ret == 0 && mysql_stmt_field_count(c.running) == 0);
    const auto wait = status & MYSQL_WAIT_WRITE ? net::posix::stream_descriptor::wait_write
                                                : net::posix::stream_descriptor::wait_read;
    c.socket.async_wait(wait, [this, &c, status](boost::system::error_code ec) {
        if (ec) return;
        advance(c, mysql_stmt_execute_cont(&c.ret, c.running, status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE)));
    });
}

/// The connection goes to the oldest waiting statement first, then the loop goes on.
void my_floor::finished(my_connection& c, bool ok) {
    my_loop* loop = std::exchange(c.job, nullptr);
    const long long rows = ok ? static_cast<long long>(mysql_stmt_affected_rows(c.running)) : 0;
    if (waiting.empty()) {
        idle.push_back(&c);
    } else {
        my_loop* next = waiting.front();
        waiting.pop_front();
        run(c, next);
    }
    loop->answered(ok, rows);
}

MYSQL_STMT* prepare(MYSQL* db, const std::string& text) {
    MYSQL_STMT* stmt = mysql_stmt_init(db);
    if (!stmt || mysql_stmt_prepare(stmt, text.c_str(), text.size()) != 0)
        throw std::runtime_error(std::string("raw MariaDB floor: prepare: ") + mysql_error(db));
    return stmt;
}

/// Connects and prepares blocking (set-up only), with the session settings of the provider.
std::unique_ptr<my_connection> connect(net::io_context& io, const providers::mysql_options& o,
                                       const sql::lock_statement_set& statements) {
    auto c = std::make_unique<my_connection>(io);
    c->db = mysql_init(nullptr);
    mysql_optionsv(c->db, MYSQL_OPT_NONBLOCK, static_cast<void*>(nullptr));
    mysql_optionsv(c->db, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    const std::string setup = "SET time_zone = '+00:00', max_statement_time = " +
                              std::to_string(std::chrono::duration<double>(o.statement_timeout).count());
    if (!mysql_real_connect(c->db, o.host.c_str(), o.user.c_str(), o.password ? o.password->c_str() : nullptr,
                            o.database.c_str(), o.port, nullptr, 0) ||
        mysql_query(c->db, setup.c_str()) != 0)
        throw std::runtime_error(std::string("raw MariaDB floor: ") + mysql_error(c->db));
    c->acquire = prepare(c->db, statements.acquire.sql);
    c->unlock = prepare(c->db, statements.unlock.sql);
    c->socket.assign(static_cast<int>(mysql_get_socket(c->db)));
    return c;
}

}  // namespace

cycle_runner raw_mysql_side(const providers::mysql_options& options, const sql::sql_lock_provider& provider,
                            net::io_context& io, std::vector<std::string> names, std::chrono::milliseconds at_most) {
    auto floor = std::make_shared<my_floor>(provider.statements());
    for (std::size_t i = 0; i < options.pool_size; ++i) {
        floor->connections.push_back(connect(io, options, floor->statements));
        floor->idle.push_back(floor->connections.back().get());
    }
    const char* cipher = mysql_get_ssl_cipher(floor->connections.front()->db);
    std::printf("  raw floor connections: %zu, TLS %s\n", floor->connections.size(), cipher ? cipher : "off");
    for (auto& name : names) floor->loops.push_back(std::make_unique<my_loop>(floor.get(), lock_configuration(name, at_most)));
    return [floor, &io](bench_clock::time_point deadline) {
        floor->deadline = deadline;
        floor->cycles = 0;
        floor->active = static_cast<int>(floor->loops.size());
        for (auto& loop : floor->loops) loop->start();
        run_until_idle(io, &floor->active);
        if (!floor->failure.empty()) throw std::runtime_error(floor->failure);
        return floor->cycles;
    };
}

}  // namespace shedlock::bench
