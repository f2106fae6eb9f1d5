// The raw PostgreSQL floor of bench/async_cycles: libpq's non-blocking API on Asio, written for
// this bench (readiness waits on the socket and nothing else: no timeouts, no idle checks, no
// retries), running the provider's own acquire and unlock statements, prepared once per connection.
#include "async_cycles_raw.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

#include <boost/asio/posix/stream_descriptor.hpp>

#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <stdexcept>
#include <variant>

namespace shedlock::bench {
namespace {

namespace net = boost::asio;
namespace sql = providers::sql;

struct pg_loop;

/// One connection: one statement in flight at most (as async_connection_pool runs them).
struct pg_connection {
    PGconn* conn = nullptr;
    net::posix::stream_descriptor socket;
    pg_loop* job = nullptr;
    bool ok = false;      // the statement in flight succeeded so far
    long answered = 0;    // rows returned, or rows affected without RETURNING
    explicit pg_connection(net::io_context& io) : socket(io) {}
    ~pg_connection() {
        if (!conn) return;
        boost::system::error_code ignored;
        socket.cancel(ignored);
        socket.release();  // libpq closes its own socket
        PQfinish(conn);
    }
};

/// The floor: connections, the queue of statements waiting for one, the loops, the slice state.
struct pg_floor {
    std::vector<std::unique_ptr<pg_connection>> connections;
    std::vector<pg_connection*> idle;
    std::deque<pg_loop*> waiting;
    std::vector<std::unique_ptr<pg_loop>> loops;
    sql::lock_statement_set statements;
    sql::acquire_result reports;
    bench_clock::time_point deadline;
    long cycles = 0, owners = 0;
    int active = 0;
    std::string failure;

    pg_floor(sql::lock_statement_set s, sql::acquire_result r) : statements(std::move(s)), reports(r) {}
    void submit(pg_loop* loop);
    void run(pg_connection& c, pg_loop* loop);
    void wait(pg_connection& c, bool write);
    void readable(pg_connection& c);
    void finished(pg_connection& c);
};

/// One name's cycle: acquire, then unlock, each with the values the provider binds.
struct pg_loop {
    pg_loop(pg_floor* f, lock_configuration c) : floor(f), config(std::move(c)) {}

    pg_floor* floor;
    lock_configuration config;
    std::string owner;
    lease held;
    bool acquiring = true;
    std::vector<std::string> values;
    std::vector<const char*> pointers;

    void set(const sql::statement& stmt, const sql::slot_values& v) {
        values.clear();
        for (auto& p : sql::bind(stmt, v))
            values.push_back(std::holds_alternative<std::int64_t>(p) ? std::to_string(std::get<std::int64_t>(p))
                                                                     : std::move(std::get<std::string>(p)));
        pointers.clear();
        for (const auto& s : values) pointers.push_back(s.c_str());
    }

    void start() {
        owner = counter_owner(++floor->owners);
        acquiring = true;
        set(floor->statements.acquire, sql::acquire_values(config, owner, system_clock::instance().now()));
        floor->submit(this);
    }

    void answered(bool ok, long rows) {
        if (!ok || (acquiring && rows <= 0)) return fail(acquiring ? "acquire" : "unlock");
        if (acquiring) {
            const timestamp now = system_clock::instance().now();
            held.name = config.name();
            held.owner = owner;
            acquiring = false;
            if (&sql::release_statement(floor->statements, held) != &floor->statements.unlock) return fail("unlock choice");
            set(floor->statements.unlock, sql::unlock_values(held, now, std::chrono::milliseconds{0}));
            return floor->submit(this);
        }
        ++floor->cycles;
        if (bench_clock::now() < floor->deadline && floor->failure.empty()) start();
        else --floor->active;
    }

    void fail(const char* what) {
        if (floor->failure.empty()) floor->failure = std::string("raw PostgreSQL floor: ") + what + " failed";
        --floor->active;
    }
};

void pg_floor::submit(pg_loop* loop) {
    if (idle.empty()) return waiting.push_back(loop);
    pg_connection* c = idle.back();
    idle.pop_back();
    run(*c, loop);
}

void pg_floor::run(pg_connection& c, pg_loop* loop) {
    c.job = loop;
    c.ok = true;
    c.answered = 0;
    if (!PQsendQueryPrepared(c.conn, loop->acquiring ? "ac_acquire" : "ac_unlock", static_cast<int>(loop->pointers.size()),
                             loop->pointers.data(), nullptr, nullptr, 0)) {
        c.ok = false;
        return finished(c);
    }
    const int pending = PQflush(c.conn);
    if (pending >= 0) return wait(c, pending == 1);
    c.ok = false;
    finished(c);
}

void pg_floor::wait(pg_connection& c, bool write) {
    c.socket.async_wait(write ? net::posix::stream_descriptor::wait_write : net::posix::stream_descriptor::wait_read,
                        [this, &c, write](boost::system::error_code ec) {
                            if (ec) return;
                            if (!write) return readable(c);
                            const int pending = PQflush(c.conn);
                            if (pending >= 0) return wait(c, pending == 1);
                            c.ok = false;
                            finished(c);
                        });
}

void pg_floor::readable(pg_connection& c) {
    if (!PQconsumeInput(c.conn)) {
        c.ok = false;
        return finished(c);
    }
    while (!PQisBusy(c.conn)) {
        PGresult* r = PQgetResult(c.conn);
        if (!r) return finished(c);
        const auto status = PQresultStatus(r);
        if (status == PGRES_TUPLES_OK && reports == sql::acquire_result::returning_row) c.answered += PQntuples(r);
        else if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) c.answered += std::atol(PQcmdTuples(r));
        else c.ok = false;
        PQclear(r);
    }
    wait(c, false);
}

/// The connection goes to the oldest waiting statement first, then the loop goes on.
void pg_floor::finished(pg_connection& c) {
    pg_loop* loop = std::exchange(c.job, nullptr);
    const bool ok = c.ok;
    const long rows = c.answered;
    if (waiting.empty()) {
        idle.push_back(&c);
    } else {
        pg_loop* next = waiting.front();
        waiting.pop_front();
        run(c, next);
    }
    loop->answered(ok, rows);
}

std::string quoted(const std::string& v) {
    std::string out = "'";
    for (char ch : v) {
        if (ch == '\'' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "'";
}

/// The URI's TLS settings, as the provider passes them (libpq's default sslmode is prefer: TLS
/// whenever the server offers it, for the driver, the blocking provider and this floor alike).
std::string tls_of(const providers::postgres_options& o) {
    std::string out;
    const std::pair<const char*, const std::string*> tls[] = {
        {"sslmode", &o.tls.mode}, {"sslrootcert", &o.tls.ca_file}, {"sslcert", &o.tls.cert_file}, {"sslkey", &o.tls.key_file}};
    for (const auto& [key, value] : tls)
        if (!value->empty()) out += std::string(" ") + key + "=" + quoted(*value);
    return out;
}

std::unique_ptr<pg_connection> connect(net::io_context& io, const providers::postgres_options& o,
                                       const sql::lock_statement_set& statements) {
    auto c = std::make_unique<pg_connection>(io);
    const std::string conninfo = "host=" + quoted(o.host) + " port=" + std::to_string(o.port) + " dbname=" +
                                 quoted(o.database) + " user=" + quoted(o.user) + " password=" +
                                 quoted(o.password.value_or("")) + " options='-c DateStyle=ISO'" + tls_of(o);
    c->conn = PQconnectdb(conninfo.c_str());
    if (PQstatus(c->conn) != CONNECTION_OK)
        throw std::runtime_error(std::string("raw PostgreSQL floor: ") + PQerrorMessage(c->conn));
    for (const auto& [name, stmt] : {std::pair{"ac_acquire", &statements.acquire}, std::pair{"ac_unlock", &statements.unlock}}) {
        PGresult* r = PQprepare(c->conn, name, stmt->sql.c_str(), static_cast<int>(stmt->slots.size()), nullptr);
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) throw std::runtime_error(std::string("raw PostgreSQL floor: prepare: ") + PQerrorMessage(c->conn));
    }
    if (PQsetnonblocking(c->conn, 1) != 0) throw std::runtime_error("raw PostgreSQL floor: PQsetnonblocking failed");
    c->socket.assign(PQsocket(c->conn));
    return c;
}

}  // namespace

cycle_runner raw_postgres_side(const providers::postgres_options& options, const sql::sql_lock_provider& provider,
                               net::io_context& io, std::vector<std::string> names, std::chrono::milliseconds at_most) {
    auto floor = std::make_shared<pg_floor>(provider.statements(), provider.dialect().acquire_reports());
    for (std::size_t i = 0; i < options.pool_size; ++i) {
        floor->connections.push_back(connect(io, options, floor->statements));
        floor->idle.push_back(floor->connections.back().get());
    }
    std::printf("  raw floor connections: %zu, TLS %s\n", floor->connections.size(),
                PQsslInUse(floor->connections.front()->conn) ? "on (as the provider's: same sslmode)" : "off");
    for (auto& name : names) {
        floor->loops.push_back(std::make_unique<pg_loop>(floor.get(), lock_configuration(name, at_most)));
    }
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
