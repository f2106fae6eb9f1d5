#include "schema_creation.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::sql {
namespace {

constexpr int max_runs = 3;

bool worth_repeating(const storage_error& e) {
    return e.category() != storage_category::unavailable && e.category() != storage_category::access_denied;
}

}  // namespace

void create_schema(connection_pool& pool, const std::vector<std::string>& ddl) {
    for (int run = 1;; ++run) {
        try {
            for (const auto& statement : ddl) pool.run([&](sql_connection& c) { return c.execute(statement, {}); });
            return;
        } catch (const storage_error& e) {
            if (run == max_runs || !worth_repeating(e)) throw;
        }
    }
}

std::string create_missing_table_advice() {
    return ". Create it (run `shedlock schema apply`, or add create_schema=true to the provider URI, or set "
           "create_schema_if_missing in the options):\n";
}

}  // namespace shedlock::providers::sql
