#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

namespace shedlock::providers {

sqlite_options sqlite_options::from_uri(const provider_uri& uri) {
    sql::require_scheme(uri, {"sqlite"});
    if (uri.path.empty() || !uri.host.empty())
        throw configuration_error("provider URI \"" + uri.redacted() +
                                  "\" names no database file; write sqlite:locks.db or sqlite:///var/lib/locks.db");
    sqlite_options o;
    o.path = uri.path;
    uri_options query(uri);
    sql::read_sql_uri_options(query, o);
    if (auto v = query.duration("busy_timeout")) o.busy_timeout = *v;
    if (auto v = query.text("durability")) {
        if (*v != "normal" && *v != "full")
            throw configuration_error("provider URI \"" + uri.redacted() + "\": option durability=" + *v +
                                      " is invalid; expected normal or full");
        o.durability = *v == "full" ? sqlite_durability::full : sqlite_durability::normal;
    }
    query.finish();
    return o;
}

}  // namespace shedlock::providers
