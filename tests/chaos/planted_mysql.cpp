// The planted MySQL/MariaDB provider. Includes the provider's PRIVATE connection header:
// test-only, until providers offer a public connection factory (see docs/chaos.md).
#include "planted_provider.hpp"

#include "mysql_connection.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

namespace shedlock::chaos {

std::unique_ptr<lock_provider> open_planted_mysql(const provider_uri& uri, planted_bug bug) {
    const auto options = providers::mysql_options::from_uri(uri);
    auto factory = [options]() -> std::unique_ptr<providers::sql::sql_connection> {
        return std::make_unique<providers::detail::mysql_connection>(options);
    };
    return std::make_unique<providers::sql::sql_lock_provider>(
        std::make_unique<planted_dialect>(providers::make_mysql_dialect(), bug), std::move(factory), options);
}

}  // namespace shedlock::chaos
