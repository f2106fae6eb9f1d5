#include "claim_hand_written.hpp"

#include <shedlock/owner_token.hpp>
#include <shedlock/time.hpp>

#ifdef CLAIM_BENCH_SQLITE
#include <sqlite3.h>
#endif
#ifdef CLAIM_BENCH_POSTGRES
#include <libpq-fe.h>
#endif
#ifdef CLAIM_BENCH_MYSQL
#include <mysql.h>
#endif

#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace shedlock::bench {
namespace {

/// The values of one cycle: a new key, an owner, the claim's expiry and the completion time.
struct cycle_values {
    std::string key, owner, until, done_at;
};
cycle_values next_values(const std::string& prefix, long n) {
    const auto now = system_clock::instance().now();
    return {prefix + std::to_string(n), make_owner_token(), format_timestamp(now + std::chrono::minutes{10}),
            format_timestamp(now)};
}

constexpr const char* hand_table = "bench_hand_claims";

}  // namespace

#ifdef CLAIM_BENCH_SQLITE
namespace {

struct sqlite_session {
    sqlite3* db = nullptr;
    sqlite3_stmt* claim = nullptr;
    sqlite3_stmt* complete = nullptr;
    ~sqlite_session() {
        sqlite3_finalize(claim);
        sqlite3_finalize(complete);
        sqlite3_close(db);
    }
    void step(sqlite3_stmt* s, std::initializer_list<const std::string*> values) {
        int i = 0;
        for (const auto* v : values) sqlite3_bind_text(s, ++i, v->data(), static_cast<int>(v->size()), SQLITE_STATIC);
        const bool ok = sqlite3_step(s) == SQLITE_DONE && sqlite3_changes(db) == 1;
        sqlite3_reset(s);
        if (!ok) throw std::runtime_error(std::string("hand-written sqlite cycle: ") + sqlite3_errmsg(db));
    }
};

}  // namespace

cycle_fn hand_written_sqlite(const std::string& path, const std::string& key_prefix) {
    auto s = std::make_shared<sqlite_session>();
    const std::string ddl = std::string("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT EXISTS ") +
                            hand_table + " (k TEXT PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL, "
                            "expires_at TEXT NOT NULL, finished_at TEXT)";
    const std::string claim = std::string("INSERT INTO ") + hand_table + " VALUES (?, ?, 'running', ?, NULL)";
    const std::string complete = std::string("UPDATE ") + hand_table + " SET state = 'done', finished_at = ? WHERE k = ? AND owner = ?";
    if (sqlite3_open(path.c_str(), &s->db) != SQLITE_OK || sqlite3_exec(s->db, ddl.c_str(), nullptr, nullptr, nullptr) ||
        sqlite3_prepare_v2(s->db, claim.c_str(), -1, &s->claim, nullptr) ||
        sqlite3_prepare_v2(s->db, complete.c_str(), -1, &s->complete, nullptr))
        throw std::runtime_error(std::string("hand-written sqlite: ") + sqlite3_errmsg(s->db));
    return [s, key_prefix, n = 0L]() mutable {
        const auto v = next_values(key_prefix, ++n);
        s->step(s->claim, {&v.key, &v.owner, &v.until});
        s->step(s->complete, {&v.done_at, &v.key, &v.owner});
    };
}
#endif

#ifdef CLAIM_BENCH_POSTGRES
namespace {

/// Runs a prepared statement; throws unless it changed exactly one row.
void one_row(PGconn* c, const char* name, std::initializer_list<const std::string*> values) {
    std::vector<const char*> params;
    for (const auto* v : values) params.push_back(v->c_str());
    PGresult* r = PQexecPrepared(c, name, static_cast<int>(params.size()), params.data(), nullptr, nullptr, 0);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK && std::strcmp(PQcmdTuples(r), "1") == 0;
    PQclear(r);
    if (!ok) throw std::runtime_error(std::string("hand-written postgres cycle: ") + PQerrorMessage(c));
}

void command(PGconn* c, const std::string& sql) {
    PGresult* r = PQexec(c, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) throw std::runtime_error(std::string("hand-written postgres: ") + PQerrorMessage(c));
}

}  // namespace

cycle_fn hand_written_postgres(const std::string& conninfo, const std::string& key_prefix, cycle_fn& cleanup) {
    std::shared_ptr<PGconn> c(PQconnectdb(conninfo.c_str()), PQfinish);
    if (PQstatus(c.get()) != CONNECTION_OK) throw std::runtime_error(std::string("hand-written postgres: ") + PQerrorMessage(c.get()));
    const std::string t = hand_table;
    command(c.get(), "CREATE TABLE IF NOT EXISTS " + t + " (k VARCHAR(255) PRIMARY KEY, owner VARCHAR(255) NOT NULL, "
                     "state VARCHAR(16) NOT NULL, expires_at TIMESTAMP(3) NOT NULL, finished_at TIMESTAMP(3))");
    for (const auto& [name, sql] : {std::pair<const char*, std::string>{"claim", "INSERT INTO " + t + " VALUES ($1, $2, 'running', $3, NULL)"},
                                    {"complete", "UPDATE " + t + " SET state = 'done', finished_at = $1 WHERE k = $2 AND owner = $3"}}) {
        PGresult* r = PQprepare(c.get(), name, sql.c_str(), 0, nullptr);
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) throw std::runtime_error(std::string("hand-written postgres: ") + PQerrorMessage(c.get()));
    }
    cleanup = [c, t] { command(c.get(), "DROP TABLE IF EXISTS " + t); };
    return [c, key_prefix, n = 0L]() mutable {
        const auto v = next_values(key_prefix, ++n);
        one_row(c.get(), "claim", {&v.key, &v.owner, &v.until});
        one_row(c.get(), "complete", {&v.done_at, &v.key, &v.owner});
    };
}
#endif

#ifdef CLAIM_BENCH_MYSQL
namespace {

struct mysql_session {
    MYSQL* db = nullptr;
    MYSQL_STMT* claim = nullptr;
    MYSQL_STMT* complete = nullptr;
    ~mysql_session() {
        if (claim) mysql_stmt_close(claim);
        if (complete) mysql_stmt_close(complete);
        if (db) mysql_close(db);
    }
    void one_row(MYSQL_STMT* s, std::initializer_list<const std::string*> values) {
        MYSQL_BIND binds[3];
        unsigned long lengths[3];
        std::memset(binds, 0, sizeof binds);
        std::size_t i = 0;
        for (const auto* v : values) {
            lengths[i] = v->size();
            binds[i].buffer_type = MYSQL_TYPE_STRING;
            binds[i].buffer = const_cast<char*>(v->data());
            binds[i].buffer_length = lengths[i];
            binds[i].length = &lengths[i];
            ++i;
        }
        if (mysql_stmt_bind_param(s, binds) || mysql_stmt_execute(s) || mysql_stmt_affected_rows(s) != 1)
            throw std::runtime_error(std::string("hand-written mysql cycle: ") + mysql_stmt_error(s));
    }
};

}  // namespace

cycle_fn hand_written_mysql(const std::string& host, const std::string& user, const std::string& password,
                            const std::string& database, unsigned port, const std::string& key_prefix, cycle_fn& cleanup) {
    auto s = std::make_shared<mysql_session>();
    s->db = mysql_init(nullptr);
    const std::string t = hand_table;
    const std::string ddl = "CREATE TABLE IF NOT EXISTS " + t + " (k VARCHAR(255) PRIMARY KEY, owner VARCHAR(255) NOT NULL, "
                            "state VARCHAR(16) NOT NULL, expires_at DATETIME(3) NOT NULL, finished_at DATETIME(3))";
    const std::string claim = "INSERT INTO " + t + " VALUES (?, ?, 'running', ?, NULL)";
    const std::string complete = "UPDATE " + t + " SET state = 'done', finished_at = ? WHERE k = ? AND owner = ?";
    if (!mysql_real_connect(s->db, host.c_str(), user.c_str(), password.c_str(), database.c_str(), port, nullptr, 0) ||
        mysql_query(s->db, "SET time_zone = '+00:00'") || mysql_query(s->db, ddl.c_str()) ||
        !(s->claim = mysql_stmt_init(s->db)) || mysql_stmt_prepare(s->claim, claim.c_str(), claim.size()) ||
        !(s->complete = mysql_stmt_init(s->db)) || mysql_stmt_prepare(s->complete, complete.c_str(), complete.size()))
        throw std::runtime_error(std::string("hand-written mysql: ") + mysql_error(s->db));
    cleanup = [s, t] { mysql_query(s->db, ("DROP TABLE IF EXISTS " + t).c_str()); };
    return [s, key_prefix, n = 0L]() mutable {
        const auto v = next_values(key_prefix, ++n);
        s->one_row(s->claim, {&v.key, &v.owner, &v.until});
        s->one_row(s->complete, {&v.done_at, &v.key, &v.owner});
    };
}
#endif

}  // namespace shedlock::bench
