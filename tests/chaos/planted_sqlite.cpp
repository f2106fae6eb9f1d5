// The planted SQLite provider. Includes the provider's PRIVATE connection header: test-only,
// until providers offer a public connection factory (see docs/chaos.md).
#include "planted_provider.hpp"

#include "sqlite_connection.hpp"

#include <shedlock/providers/sqlite_lock_provider.hpp>

namespace shedlock::chaos {

std::unique_ptr<lock_provider> open_planted_sqlite(const provider_uri& uri, planted_bug bug) {
    const auto options = providers::sqlite_options::from_uri(uri);
    auto factory = [options]() -> std::unique_ptr<providers::sql::sql_connection> {
        return std::make_unique<providers::detail::sqlite_connection>(options);
    };
    return std::make_unique<providers::sql::sql_lock_provider>(
        std::make_unique<planted_dialect>(providers::make_sqlite_dialect(), bug), std::move(factory), options);
}

}  // namespace shedlock::chaos
