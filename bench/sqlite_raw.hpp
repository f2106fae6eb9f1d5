#pragma once
// A raw sqlite3 program, written as a careful user would: opened the way the provider opens its
// file (WAL, synchronous=NORMAL, SQLite's own busy_timeout, no mutex), statements prepared once,
// values bound SQLITE_STATIC, timestamps written by a hand-written digit writer. The floors of
// bench/sqlite_cycles and the baseline of bench/sqlite_contention.

#include <sqlite3.h>

#include <chrono>
#include <string>

namespace shedlock::bench {

/// "YYYY-MM-DD HH:MM:SS.mmm" (UTC) into `out` (24 bytes with the NUL), without printf or locale.
void format_utc(std::chrono::sys_time<std::chrono::milliseconds> t, char* out);

/// The wall clock, to the millisecond.
std::chrono::sys_time<std::chrono::milliseconds> now_ms();

/// One connection with an acquire and an unlock statement. Throws std::runtime_error on failure.
struct raw_sqlite {
    sqlite3* db = nullptr;
    sqlite3_stmt* acquire = nullptr;
    sqlite3_stmt* unlock = nullptr;

    raw_sqlite(const std::string& path, const std::string& acquire_sql, const std::string& unlock_sql,
               std::chrono::milliseconds busy_timeout = std::chrono::seconds{5});
    raw_sqlite(const raw_sqlite&) = delete;
    raw_sqlite& operator=(const raw_sqlite&) = delete;
    ~raw_sqlite();

    [[noreturn]] void fail(const char* what) const;
    void text(sqlite3_stmt* s, int i, const char* value, int n) const;
};

/// The provider's own two statements (text from its dialect) on a raw connection: values bound
/// in its slot order, the RETURNING row read.
class raw_own_sql_lock {
public:
    raw_own_sql_lock(const std::string& path, const std::string& acquire_sql, const std::string& unlock_sql,
                     std::string name, std::string owner);
    /// True if taken (a row came back); false if the lock is live elsewhere. Throws when SQLite
    /// fails, e.g. SQLITE_BUSY past the busy timeout.
    bool try_lock(std::chrono::milliseconds lease);
    /// Releases what try_lock took; throws if nothing was released.
    void unlock();
    raw_sqlite& raw() { return raw_; }

private:
    raw_sqlite raw_;
    std::string name_, owner_;
    char now_[24] = {};
};

}  // namespace shedlock::bench
