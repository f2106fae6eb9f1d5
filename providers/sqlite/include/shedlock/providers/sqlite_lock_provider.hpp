#pragma once
/// \file
/// Locks in an SQLite file shared by the threads and processes of one host.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace shedlock::providers {

/// How SQLite makes a commit durable. The lock table is tiny, so the trade-off is only about
/// power loss: with `normal` (WAL + synchronous=NORMAL, ~10x faster) the last commits before a
/// power cut may be lost, i.e. a lock record may roll back to an older state and a task could run
/// again. `full` fsyncs every commit. A process crash loses nothing in either mode.
enum class sqlite_durability { normal, full };

struct sqlite_options : sql::sql_lock_options {
    std::string path = "shedlock.db";
    /// Give up and report storage_error(busy) after waiting this long for the write lock.
    std::chrono::milliseconds busy_timeout = std::chrono::seconds{5};
    sqlite_durability durability = sqlite_durability::normal;

    /// Reads `sqlite:path/to/locks.db?table=..&columns=..&upper_case=..&use_db_time=..&pool_size=..&create_schema=..
    /// &busy_timeout=..&durability=normal|full` (`sqlite:///abs/path` for an absolute path).
    /// Unknown keys, bad values and an empty path are configuration_errors naming them.
    static sqlite_options from_uri(const provider_uri& uri);
};

/// The SQLite dialect: one `INSERT ... ON CONFLICT DO UPDATE ... WHERE expired RETURNING`
/// per acquire; times stored as text "YYYY-MM-DD HH:MM:SS.mmm" UTC (what SQLite's own
/// strftime('%Y-%m-%d %H:%M:%f','now') returns, so client and db time compare alike).
std::unique_ptr<sql::sql_dialect> make_sqlite_dialect();

/// Opens (creating if needed) the database file in WAL mode and checks the lock table.
/// Throws storage_error when the file cannot be opened (naming the path) or the table is
/// missing (printing its DDL). Safe for many threads and many processes on one file; waits for
/// the write lock with short, jittered polls instead of SQLite's coarse busy_timeout backoff, so
/// no process starves behind the others.
std::unique_ptr<sql::sql_lock_provider> make_sqlite_lock_provider(const sqlite_options& options,
                                                                  const shedlock::clock& clock = system_clock::instance());

/// New connections to the database `options` name: the factory of a backend session's one pool.
sql::connection_factory sqlite_connections(const sqlite_options& options);

}  // namespace shedlock::providers
