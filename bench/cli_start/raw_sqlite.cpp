// The raw SQLite floor: the sqlite3 C API, WAL and synchronous=NORMAL and a busy timeout (the
// provider's settings), one upsert to take the lock, one UPDATE to release it.
#include "raw_backend.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace shedlock::bench {
namespace {

class raw_sqlite final : public raw_backend {
public:
    explicit raw_sqlite(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
            throw std::runtime_error("sqlite: cannot open " + path);
        sqlite3_busy_timeout(db_, 5000);
        exec("PRAGMA journal_mode = WAL");
        exec("PRAGMA synchronous = NORMAL");
    }
    ~raw_sqlite() override { sqlite3_close(db_); }

    bool acquire(const std::string& name, const std::string& owner, long at_most_ms) override {
        const char* sql =
            "INSERT INTO shedlock (name, lock_until, locked_at, locked_by) "
            "VALUES (?1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?2), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?3) "
            "ON CONFLICT (name) DO UPDATE SET lock_until = excluded.lock_until, locked_at = excluded.locked_at, "
            "locked_by = excluded.locked_by WHERE shedlock.lock_until <= excluded.locked_at";
        const std::string plus = "+" + std::to_string(at_most_ms / 1000.0) + " seconds";
        return run(sql, {name, plus, owner}) == 1;
    }

    void release(const std::string& name, const std::string& owner) override {
        run("UPDATE shedlock SET lock_until = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE name = ?1 AND locked_by = ?2",
            {name, owner});
    }

private:
    void exec(const char* sql) {
        if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
    }

    int run(const char* sql, std::initializer_list<std::string> params) {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
        int i = 1;
        for (const auto& p : params) sqlite3_bind_text(stmt, i++, p.data(), static_cast<int>(p.size()), SQLITE_STATIC);
        const int rc = sqlite3_step(stmt);
        sqlite3_finalize(stmt);
        if (rc != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
        return sqlite3_changes(db_);
    }

    sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<raw_backend> open_raw_sqlite(const std::string& path) { return std::make_unique<raw_sqlite>(path); }

}  // namespace shedlock::bench
