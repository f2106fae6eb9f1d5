#pragma once
// The PostgreSQL server that ../server.sh starts, as every test of this folder reaches it: one
// definition, so the test files share it (also when CMake compiles them as one unity source).
#include "server_env.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <pqxx/pqxx>

#include <cstdint>
#include <string>

namespace shedlock::test::postgres_server {

inline const std::string password = "shedlock-test-pw";  // what providers/postgres/server.sh sets

inline std::string uri() { return required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh"); }

/// The libpq connection string of the test server (for connections outside the provider).
inline std::string conninfo() {
    const auto o = providers::postgres_options::from_uri(parse_provider_uri(uri()));
    return "host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database + " user=" + o.user +
           " password=" + o.password.value_or("");
}

/// Runs `sql` on a connection of its own, outside the provider.
inline void exec(const std::string& sql) {
    pqxx::connection c(conninfo());
    pqxx::nontransaction(c).exec(sql);
}

/// A new lock's first fencing token on this server with a BIGINT fencing column: the WAL
/// timeline in bits 40-63, plus 1 (postgres_dialect.cpp, timeline_epoch).
inline std::int64_t first_token() {
    pqxx::connection c(conninfo());
    return pqxx::nontransaction(c)
        .exec1("SELECT ((('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::bigint << 40) + 1)")[0]
        .as<std::int64_t>();
}

}  // namespace shedlock::test::postgres_server
