#include "postgres_servers.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_uri_options.hpp>

namespace shedlock::providers {
namespace {

// libpq's own keys and modes, passed through to its connection string.
const sql::tls_keys postgres_tls_keys{
    "sslmode", "sslrootcert", "sslcert", "sslkey", {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}};

}  // namespace

postgres_options postgres_options::from_uri(const provider_uri& uri) {
    sql::require_scheme(uri, {"postgresql", "postgres"});
    postgres_options o;
    uri_options query(uri);
    sql::read_server_uri(uri, query, o);
    detail::read_server_list(uri, postgres_options().port, o);
    o.target = detail::read_session_target(uri, query, !o.servers.empty());
    sql::read_sql_uri_options(query, o);
    o.tls = sql::read_tls_uri(uri, query, postgres_tls_keys);
    if (auto v = query.flag("async_unlock")) o.async_unlock = *v;
    if (auto v = query.duration("known_record_ttl")) o.known_record_ttl = *v;  // the refusal's plain UPDATE
    if (auto v = query.text("pooler")) {
        if (*v == "auto") o.pooler = postgres_options::pooler_kind::auto_detect;
        else if (*v == "none") o.pooler = postgres_options::pooler_kind::none;
        else if (*v == "pgbouncer") o.pooler = postgres_options::pooler_kind::pgbouncer;
        else
            throw configuration_error("provider URI \"" + uri.redacted() + "\": pooler=\"" + *v +
                                      "\" is not auto, none or pgbouncer (auto, the default, detects PgBouncer)");
    }
    query.finish();
    return o;
}

}  // namespace shedlock::providers
