#include "sqlite_connection.hpp"

#include "sqlite_busy_wait.hpp"

#include <shedlock/error.hpp>

#include <sqlite3.h>

#include <charconv>
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
        case SQLITE_FULL:  // the statement's transaction was rolled back: nothing applied
            return storage_error(storage_category::unavailable, retry_advice::safe, what);
        case SQLITE_IOERR:  // possibly while committing
            return storage_error(storage_category::unavailable, retry_advice::in_doubt,
                                 what + "; " + may_have_been_applied);
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

/// Every identifier the statements write is double-quoted. SQLite reads a double-quoted name
/// that matches no column as a string literal, so a probe for a missing (or misspelt, mapped)
/// column would succeed and the statements then fail at the first lock. Off, such a name is
/// the "no such column" error the start-up check reports.
void refuse_quoted_strings(sqlite3* db) {
    // DML only: DDL keeps the default, so a schema someone wrote with "..." literals still loads.
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, nullptr);
}

}  // namespace

sqlite_connection::sqlite_connection(const sqlite_options& options)
    : path_(options.path), busy_state_(std::make_unique<busy_wait_state>(busy_wait_state{options.busy_timeout})) {
    try {
        db_ = std::make_unique<SQLite::Database>(path_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX);
        install_busy_wait(db_->getHandle(), *busy_state_);
        refuse_quoted_strings(db_->getHandle());
        enable_wal(*db_, options.busy_timeout);
        db_->exec(options.durability == sqlite_durability::full ? "PRAGMA synchronous = FULL"
                                                                 : "PRAGMA synchronous = NORMAL");
    } catch (const SQLite::Exception& e) {
        throw to_storage_error(e, path_);
    }
}

void sqlite_connection::fail(int rc) const { throw SQLite::Exception(db_->getHandle(), rc); }

sqlite_connection::prepared_statement& sqlite_connection::prepared(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second;
    prepared_statement stmt;
    sqlite3_stmt* handle = nullptr;
    const int rc = sqlite3_prepare_v2(db_->getHandle(), sql.c_str(), static_cast<int>(sql.size()) + 1, &handle, nullptr);
    stmt.handle.reset(handle);
    if (rc != SQLITE_OK) fail(rc);
    stmt.parameters = sqlite3_bind_parameter_count(handle);
    return statements_.emplace(sql, std::move(stmt)).first->second;
}

// SQLITE_STATIC: `params` outlives the step that reads them. Every parameter is bound again
// before each step, so the pointers left behind after a call are never read; a call that passes
// fewer values than the statement takes clears the bindings first, so the rest are NULL.
void sqlite_connection::bind(const prepared_statement& stmt, const std::vector<sql::sql_param>& params) {
    sqlite3_stmt* handle = stmt.handle.get();
    if (static_cast<int>(params.size()) < stmt.parameters) sqlite3_clear_bindings(handle);
    for (std::size_t i = 0; i < params.size(); ++i) {
        const int index = static_cast<int>(i) + 1;
        int rc;
        if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
            rc = sqlite3_bind_int64(handle, index, *n);
        } else {
            const auto& text = std::get<std::string>(params[i]);
            rc = sqlite3_bind_text(handle, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
        }
        if (rc != SQLITE_OK) fail(rc);
    }
}

sql::sql_result sqlite_connection::step_all(sqlite3_stmt* stmt) {
    sql::sql_result result;
    const int columns = sqlite3_column_count(stmt);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        auto& row = result.rows.emplace_back();
        row.reserve(static_cast<std::size_t>(columns));
        for (int i = 0; i < columns; ++i) {
            const int type = sqlite3_column_type(stmt, i);
            if (type == SQLITE_NULL) {
                row.emplace_back();
            } else if (type == SQLITE_INTEGER) {  // SQLite's own text of it, without its conversion's malloc
                char digits[24];
                const auto end = std::to_chars(digits, digits + sizeof digits, sqlite3_column_int64(stmt, i)).ptr;
                row.emplace_back(std::in_place, digits, end);
            } else {
                const auto* text = static_cast<const char*>(sqlite3_column_blob(stmt, i));
                row.emplace_back(std::in_place, text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
            }
        }
    }
    if (rc != SQLITE_DONE) fail(rc);
    result.affected_rows = sqlite3_changes(db_->getHandle());
    return result;
}

sql::sql_result sqlite_connection::execute(const std::string& sql, const std::vector<sql::sql_param>& params) {
    try {
        auto& stmt = prepared(sql);
        // Reset on every exit, a failed step or a bad_alloc included: the next call starts clean.
        const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> reset_on_exit(stmt.handle.get(), &sqlite3_reset);
        bind(stmt, params);
        return step_all(stmt.handle.get());
    } catch (const SQLite::Exception& e) {
        auto error = to_storage_error(e, path_);
        statements_.erase(sql);  // a failed prepare or step leaves the statement unusable
        throw error;
    }
}

}  // namespace shedlock::providers::detail
