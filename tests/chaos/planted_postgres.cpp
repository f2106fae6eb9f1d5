// The planted PostgreSQL provider. Includes the provider's PRIVATE connection header: test-only,
// until providers offer a public connection factory (see docs/chaos.md).
#include "planted_provider.hpp"

#include "postgres_connection.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

namespace shedlock::chaos {

std::unique_ptr<lock_provider> open_planted_postgres(const provider_uri& uri, planted_bug bug) {
    const auto options = providers::postgres_options::from_uri(uri);
    auto factory = [options]() -> std::unique_ptr<providers::sql::sql_connection> {
        return std::make_unique<providers::detail::postgres_connection>(options);
    };
    return std::make_unique<providers::sql::sql_lock_provider>(
        std::make_unique<planted_dialect>(providers::make_postgres_dialect(options.async_unlock), bug),
        std::move(factory), options);
}

}  // namespace shedlock::chaos
