// The PostgreSQL raw floor: the provider's own acquire and unlock statements (from its dialect,
// for the table the provider creates: fencing, client time, a 64-bit token) issued with libpq on
// one connection per decider, choosing between the full acquire and the plain UPDATE of a known
// record exactly as the provider does (its known_lock_names and acquire_statement, one cache per
// process with the provider's default TTL). Direct: named prepared statements, as the provider uses them on a
// server; through PgBouncer: unnamed statements and no startup `options`, as the provider does
// behind a pooler.
#include "fleet_deciders.hpp"

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/known_lock_names.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>
#include <shedlock/providers/sql/lock_statement_set.hpp>
#include <shedlock/time.hpp>

#include <libpq-fe.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace shedlock::bench::fleet {

namespace {

namespace sql = shedlock::providers::sql;

sql::lock_statement_set fleet_statements() {
    sql::statement_options options;
    options.fencing = true;
    options.wide_fencing = true;
    return sql::lock_statement_set(*providers::make_postgres_dialect(true), sql::lock_table(sql::table_name(fleet_table)),
                                   options);
}

std::string libpq_conninfo(const providers::postgres_options& o, bool pooled) {
    const auto quoted = [](const std::string& v) {
        std::string out = "'";
        for (char c : v) out += (c == '\'' || c == '\\') ? std::string("\\") + c : std::string(1, c);
        return out + "'";
    };
    std::string info = "host=" + quoted(o.host) + " port=" + std::to_string(o.port) + " dbname=" + quoted(o.database) +
                       " user=" + quoted(o.user) + " password=" + quoted(o.password.value_or(""));
    return pooled ? info : info + " options='-c DateStyle=ISO'";
}

class raw_postgres_decider : public decider {
public:
    raw_postgres_decider(const std::string& conninfo, bool pooled, const decider_setup& setup, int number,
                         std::shared_ptr<sql::known_lock_names> known)
        : conn_(PQconnectdb(conninfo.c_str())), pooled_(pooled), statements_(fleet_statements()),
          owner_(fleet_owner("raw", number)), at_most_(setup.at_most), hold_(setup.hold), known_(std::move(known)) {
        if (PQstatus(conn_) != CONNECTION_OK) throw std::runtime_error(std::string("raw floor: ") + PQerrorMessage(conn_));
        if (pooled_) return;
        prepare("fleet_acquire", statements_.acquire), prepare("fleet_unlock", statements_.unlock);
        if (statements_.acquire_existing) prepare("fleet_acquire_existing", *statements_.acquire_existing);
    }
    ~raw_postgres_decider() override { PQfinish(conn_); }

    bool try_acquire(const std::string& name) override {
        name_ = name;
        locked_at_ = shedlock::system_clock::instance().now();
        const auto asked = std::chrono::steady_clock::now();
        const sql::statement& s = sql::acquire_statement(statements_.acquire, statements_.acquire_existing, *known_, name, asked);
        const bool plain_update = &s != &statements_.acquire;
        const bool granted = run(plain_update ? "fleet_acquire_existing" : "fleet_acquire", s) == 1;
        if (statements_.acquire_existing) known_->record_answer(name, plain_update, granted, asked);
        return granted;
    }
    void release() override { run("fleet_unlock", statements_.unlock); }

private:
    void prepare(const char* id, const sql::statement& s) {
        PGresult* r = PQprepare(conn_, id, s.sql.c_str(), static_cast<int>(s.slots.size()), nullptr);
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) throw std::runtime_error(std::string("raw floor: ") + PQerrorMessage(conn_));
    }

    std::string value_of(sql::slot s) const {
        switch (s) {
            case sql::slot::name: return name_;
            case sql::slot::owner: return owner_;
            case sql::slot::now: return format_timestamp(locked_at_);
            case sql::slot::lock_until: return format_timestamp(locked_at_ + at_most_);
            case sql::slot::minimum_hold_until: return format_timestamp(locked_at_ + hold_);
            case sql::slot::at_most_ms: return std::to_string(at_most_.count());
            case sql::slot::remaining_minimum_hold_ms: return std::to_string(hold_.count());
        }
        return {};
    }

    /// Runs one statement with the values of its slots; the rows it returned.
    int run(const char* id, const sql::statement& s) {
        std::vector<std::string> values;
        for (sql::slot slot : s.slots) values.push_back(value_of(slot));
        std::vector<const char*> params;
        for (const auto& v : values) params.push_back(v.c_str());
        const int n = static_cast<int>(params.size());
        PGresult* r = pooled_ ? PQexecParams(conn_, s.sql.c_str(), n, nullptr, params.data(), nullptr, nullptr, 0)
                              : PQexecPrepared(conn_, id, n, params.data(), nullptr, nullptr, 0);
        const auto status = PQresultStatus(r);
        const int rows = PQntuples(r);
        PQclear(r);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
            throw std::runtime_error(std::string("raw floor: ") + PQerrorMessage(conn_));
        return rows;
    }

    PGconn* conn_;
    bool pooled_;
    sql::lock_statement_set statements_;
    std::string owner_, name_;
    timestamp locked_at_{};
    std::chrono::milliseconds at_most_, hold_;
    std::shared_ptr<sql::known_lock_names> known_;
};

}  // namespace

decider_factory raw_postgres_deciders(const decider_setup& setup) {
    const auto options = providers::postgres_options::from_uri(parse_provider_uri(setup.uri));
    const bool pooled = setup.backend == "pgbouncer";
    const std::string conninfo = libpq_conninfo(options, pooled);
    auto count = std::make_shared<std::atomic<int>>(0);
    auto known = std::make_shared<sql::known_lock_names>(options.known_record_ttl);
    return [conninfo, pooled, setup, count, known] {
        return std::make_unique<raw_postgres_decider>(conninfo, pooled, setup, ++*count, known);
    };
}

}  // namespace shedlock::bench::fleet
