#pragma once
// The PostgreSQL server that ../server.sh starts, as every test of this folder reaches it: one
// definition, so the test files share it (also when CMake compiles them as one unity source).
#include "server_env.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <pqxx/pqxx>

#include <string>

namespace shedlock::test::postgres_server {

inline const std::string password = "shedlock-test-pw";  // what providers/postgres/server.sh sets

inline std::string uri() { return required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh"); }

/// Runs `sql` on a connection of its own, outside the provider.
inline void exec(const std::string& sql) {
    const auto o = providers::postgres_options::from_uri(parse_provider_uri(uri()));
    pqxx::connection c("host=" + o.host + " port=" + std::to_string(o.port) + " dbname=" + o.database +
                       " user=" + o.user + " password=" + o.password.value_or(""));
    pqxx::nontransaction(c).exec(sql);
}

}  // namespace shedlock::test::postgres_server
