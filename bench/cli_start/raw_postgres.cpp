// The raw PostgreSQL floor: libpq, the URI as libpq takes it, ShedLock's upsert on the server's
// clock, an UPDATE to release.
#include "raw_backend.hpp"

#include <libpq-fe.h>

#include <stdexcept>

namespace shedlock::bench {
namespace {

class raw_postgres final : public raw_backend {
public:
    explicit raw_postgres(const std::string& uri) : conn_(PQconnectdb(uri.c_str())) {
        if (PQstatus(conn_) != CONNECTION_OK) throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(conn_));
    }
    ~raw_postgres() override { PQfinish(conn_); }

    bool acquire(const std::string& name, const std::string& owner, long at_most_ms) override {
        const std::string ms = std::to_string(at_most_ms);
        return run("INSERT INTO shedlock (name, lock_until, locked_at, locked_by) "
                   "VALUES ($1, now() + $2::bigint * interval '1 millisecond', now(), $3) "
                   "ON CONFLICT (name) DO UPDATE SET lock_until = excluded.lock_until, locked_at = excluded.locked_at, "
                   "locked_by = excluded.locked_by WHERE shedlock.lock_until <= now()",
                   {name.c_str(), ms.c_str(), owner.c_str()}) == 1;
    }

    void release(const std::string& name, const std::string& owner) override {
        run("UPDATE shedlock SET lock_until = now() WHERE name = $1 AND locked_by = $2", {name.c_str(), owner.c_str()});
    }

private:
    int run(const char* sql, std::initializer_list<const char*> params) {
        const char* values[3];
        int n = 0;
        for (const char* p : params) values[n++] = p;
        PGresult* r = PQexecParams(conn_, sql, n, nullptr, values, nullptr, nullptr, 0);
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        const std::string affected = PQcmdTuples(r);
        PQclear(r);
        if (!ok) throw std::runtime_error(std::string("postgres: ") + PQerrorMessage(conn_));
        return affected.empty() ? 0 : std::stoi(affected);
    }

    PGconn* conn_;
};

}  // namespace

std::unique_ptr<raw_backend> open_raw_postgres(const std::string& uri) { return std::make_unique<raw_postgres>(uri); }

}  // namespace shedlock::bench
