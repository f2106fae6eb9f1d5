#include "planted_provider.hpp"

#include <shedlock/error.hpp>

namespace shedlock::chaos {

std::unique_ptr<lock_provider> open_planted_provider(const provider_uri& uri, planted_bug bug) {
    if (uri.scheme == "sqlite") return open_planted_sqlite(uri, bug);
#ifdef SHEDLOCK_CHAOS_WITH_POSTGRES
    if (uri.scheme == "postgresql" || uri.scheme == "postgres") return open_planted_postgres(uri, bug);
#endif
#ifdef SHEDLOCK_CHAOS_WITH_MYSQL
    if (uri.scheme == "mysql" || uri.scheme == "mariadb") return open_planted_mysql(uri, bug);
#endif
    throw configuration_error("chaos_planted_worker: no planted bugs for scheme \"" + uri.scheme +
                              "\" (sqlite, postgresql and mysql only)");
}

}  // namespace shedlock::chaos
