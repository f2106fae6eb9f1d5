#include "sqlite_connection.hpp"

#include "sqlite_busy_wait.hpp"

#include <shedlock/error.hpp>

#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace shedlock::providers::detail {
namespace {

storage_error to_storage_error(const SQLite::Exception& e, const std::string& path) {
    const int code = e.getErrorCode() & 0xff;
    const std::string what = std::string("SQLite \"") + path + "\": " + e.what();
    switch (code) {
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return storage_error(storage_category::busy, what + " (write lock stayed busy past busy_timeout)");
        case SQLITE_CANTOPEN:
        case SQLITE_PERM:
        case SQLITE_READONLY:
        case SQLITE_AUTH:
            return storage_error(storage_category::access_denied,
                                 what + "; check that the directory exists and the file is writable by this user");
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            return storage_error(storage_category::invalid_data, what + "; the file is not a usable SQLite database");
        case SQLITE_IOERR:
        case SQLITE_FULL:
            return storage_error(storage_category::unavailable, what);
        default: break;
    }
    const std::string message = e.what();
    if (message.find("no such table") != std::string::npos || message.find("no such column") != std::string::npos)
        return storage_error(storage_category::missing_schema, what);
    return storage_error(storage_category::other, what);
}

/// Puts the file in WAL mode. Switching a new file to WAL needs the other connections out of the
/// way, and SQLite then answers SQLITE_BUSY (or leaves the old mode) without calling the busy
/// handler, so instances opening a new file at once would fail. WAL is stored in the file: the
/// first opener switches it, the others wait here (polling, up to busy_timeout) and see "wal".
void enable_wal(SQLite::Database& db, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string mode;
    for (int attempt = 0;; ++attempt) {
        try {
            mode = db.execAndGet("PRAGMA journal_mode = WAL").getString();
            if (mode == "wal") return;
        } catch (const SQLite::Exception& e) {
            if ((e.getErrorCode() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) throw;
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200 + (attempt % 8) * 250));
    }
    throw storage_error(storage_category::busy, "SQLite \"" + db.getFilename() + "\": could not switch to WAL mode "
                                                "(journal_mode stayed \"" + mode + "\" for busy_timeout); another "
                                                "program holds the file in rollback-journal mode");
}

}  // namespace

sqlite_connection::sqlite_connection(const sqlite_options& options)
    : path_(options.path), busy_state_(std::make_unique<busy_wait_state>(busy_wait_state{options.busy_timeout})) {
    try {
        db_ = std::make_unique<SQLite::Database>(path_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX);
        install_busy_wait(db_->getHandle(), *busy_state_);
        enable_wal(*db_, options.busy_timeout);
        db_->exec(options.durability == sqlite_durability::full ? "PRAGMA synchronous = FULL"
                                                                 : "PRAGMA synchronous = NORMAL");
    } catch (const SQLite::Exception& e) {
        throw to_storage_error(e, path_);
    }
}

SQLite::Statement& sqlite_connection::prepared(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it == statements_.end()) it = statements_.emplace(sql, std::make_unique<SQLite::Statement>(*db_, sql)).first;
    return *it->second;
}

sql::sql_result sqlite_connection::step_all(SQLite::Statement& stmt) {
    sql::sql_result result;
    while (stmt.executeStep()) {
        std::vector<std::optional<std::string>> row;
        for (int i = 0; i < stmt.getColumnCount(); ++i) {
            const auto column = stmt.getColumn(i);
            if (column.isNull()) row.emplace_back();
            else row.emplace_back(column.getString());
        }
        result.rows.push_back(std::move(row));
    }
    result.affected_rows = db_->getChanges();
    return result;
}

sql::sql_result sqlite_connection::execute(const std::string& sql, const std::vector<sql::sql_param>& params) {
    try {
        auto& stmt = prepared(sql);
        stmt.reset();
        stmt.clearBindings();
        for (std::size_t i = 0; i < params.size(); ++i) {
            const int index = static_cast<int>(i) + 1;
            if (const auto* n = std::get_if<std::int64_t>(&params[i])) stmt.bind(index, static_cast<int64_t>(*n));
            else stmt.bind(index, std::get<std::string>(params[i]));
        }
        auto result = step_all(stmt);
        stmt.reset();
        return result;
    } catch (const SQLite::Exception& e) {
        auto error = to_storage_error(e, path_);
        statements_.erase(sql);  // a failed prepare or step leaves the statement unusable
        throw error;
    }
}

}  // namespace shedlock::providers::detail
