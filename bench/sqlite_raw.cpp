#include "sqlite_raw.hpp"

#include <stdexcept>
#include <utility>

namespace shedlock::bench {

namespace chr = std::chrono;

void format_utc(chr::sys_time<chr::milliseconds> t, char* out) {
    const auto day = chr::floor<chr::days>(t);
    const chr::year_month_day ymd{day};
    const auto ms = (t - day).count();
    auto put = [&out](long value, int width) {
        for (int i = width - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
        out += width;
    };
    put(static_cast<int>(ymd.year()), 4), *out++ = '-';
    put(static_cast<unsigned>(ymd.month()), 2), *out++ = '-';
    put(static_cast<unsigned>(ymd.day()), 2), *out++ = ' ';
    put(ms / 3'600'000, 2), *out++ = ':';
    put(ms / 60'000 % 60, 2), *out++ = ':';
    put(ms / 1000 % 60, 2), *out++ = '.';
    put(ms % 1000, 3), *out = '\0';
}

chr::sys_time<chr::milliseconds> now_ms() { return chr::floor<chr::milliseconds>(chr::system_clock::now()); }

raw_sqlite::raw_sqlite(const std::string& path, const std::string& acquire_sql, const std::string& unlock_sql,
                       chr::milliseconds busy_timeout) {
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK)
        fail("open");
    sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
    if (sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr))
        fail("pragmas");
    if (sqlite3_prepare_v2(db, acquire_sql.c_str(), -1, &acquire, nullptr) ||
        sqlite3_prepare_v2(db, unlock_sql.c_str(), -1, &unlock, nullptr))
        fail("prepare");
}

raw_sqlite::~raw_sqlite() {
    sqlite3_finalize(acquire);
    sqlite3_finalize(unlock);
    sqlite3_close(db);
}

void raw_sqlite::fail(const char* what) const {
    throw std::runtime_error(std::string("raw sqlite3 ") + what + ": " + sqlite3_errmsg(db));
}

void raw_sqlite::text(sqlite3_stmt* s, int i, const char* value, int n) const {
    if (sqlite3_bind_text(s, i, value, n, SQLITE_STATIC) != SQLITE_OK) fail("bind");
}

raw_own_sql_lock::raw_own_sql_lock(const std::string& path, const std::string& acquire_sql,
                                   const std::string& unlock_sql, std::string name, std::string owner)
    : raw_(path, acquire_sql, unlock_sql), name_(std::move(name)), owner_(std::move(owner)) {}

bool raw_own_sql_lock::try_lock(chr::milliseconds lease) {
    char until[24];
    const auto t = now_ms();
    format_utc(t, now_);
    format_utc(t + lease, until);
    const int n = static_cast<int>(name_.size()), o = static_cast<int>(owner_.size());
    raw_.text(raw_.acquire, 1, name_.data(), n), raw_.text(raw_.acquire, 2, until, 23);
    raw_.text(raw_.acquire, 3, now_, 23), raw_.text(raw_.acquire, 4, owner_.data(), o);
    int rc = sqlite3_step(raw_.acquire);
    const bool taken = rc == SQLITE_ROW && sqlite3_column_text(raw_.acquire, 0) &&
                       sqlite3_column_text(raw_.acquire, 1) && sqlite3_column_int64(raw_.acquire, 2) > 0;
    while (rc == SQLITE_ROW) rc = sqlite3_step(raw_.acquire);
    sqlite3_reset(raw_.acquire);
    if (rc != SQLITE_DONE) raw_.fail("acquire");
    return taken;
}

void raw_own_sql_lock::unlock() {
    const int n = static_cast<int>(name_.size()), o = static_cast<int>(owner_.size());
    raw_.text(raw_.unlock, 1, now_, 23), raw_.text(raw_.unlock, 2, name_.data(), n);
    raw_.text(raw_.unlock, 3, owner_.data(), o), raw_.text(raw_.unlock, 4, now_, 23);
    const int rc = sqlite3_step(raw_.unlock);
    sqlite3_reset(raw_.unlock);
    if (rc != SQLITE_DONE || sqlite3_changes(raw_.db) != 1) raw_.fail("unlock");
}

}  // namespace shedlock::bench
