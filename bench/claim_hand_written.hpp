#pragma once
// The hand-written floors of bench/claim_cycles: the simplest claim + complete a user could write
// with the client library alone, on a table (or key) of its own. It handles only the bench's path
// (a new key each cycle): a plain INSERT that succeeds once per key, then an owner-checked UPDATE
// (Redis: SET NX, then SET XX). No take-over of expired or failed claims, no result, no pool, no
// checks beyond the affected rows: less work than any complete idempotency store, which is what makes
// it the floor.

#include <functional>
#include <string>

namespace shedlock::bench {

using cycle_fn = std::function<void()>;

#ifdef CLAIM_BENCH_SQLITE
/// sqlite3 on `path` (WAL, synchronous=NORMAL, as the provider); creates its own table.
cycle_fn hand_written_sqlite(const std::string& path, const std::string& key_prefix);
#endif
#ifdef CLAIM_BENCH_POSTGRES
/// libpq with a connection string; creates its own table, DROPped by the returned cleanup.
cycle_fn hand_written_postgres(const std::string& conninfo, const std::string& key_prefix, cycle_fn& cleanup);
#endif
#ifdef CLAIM_BENCH_MYSQL
/// MariaDB C API; creates its own table, DROPped by the returned cleanup.
cycle_fn hand_written_mysql(const std::string& host, const std::string& user, const std::string& password,
                            const std::string& database, unsigned port, const std::string& key_prefix, cycle_fn& cleanup);
#endif

}  // namespace shedlock::bench
