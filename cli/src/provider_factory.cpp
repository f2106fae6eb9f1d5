#include "provider_factory.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>
#ifdef SHEDLOCK_CLI_WITH_REDIS
#include <shedlock/providers/redis_lock_provider.hpp>
#endif

namespace shedlock::cli {
namespace {

providers::sqlite_options sqlite_from_uri(const provider_uri& uri) {
    providers::sqlite_options o;
    if (uri.path.empty())
        throw configuration_error("provider URI \"" + uri.redacted() + "\" names no file; write sqlite:path/to/locks.db");
    o.path = uri.path;
    uri_options q(uri);
    if (auto v = q.text("table")) o.table = *v;
    if (auto v = q.flag("use_db_time")) o.use_db_time = *v;
    if (auto v = q.flag("create_schema")) o.create_schema_if_missing = *v;
    if (auto v = q.duration("busy_timeout")) o.busy_timeout = *v;
    if (auto v = q.integer("pool_size", 1, 64)) o.pool_size = static_cast<std::size_t>(*v);
    if (auto v = q.text("durability")) {
        if (*v != "normal" && *v != "full")
            throw configuration_error("provider URI \"" + uri.redacted() + "\": durability=" + *v +
                                      " is invalid; expected normal or full");
        o.durability = *v == "full" ? providers::sqlite_durability::full : providers::sqlite_durability::normal;
    }
    q.finish();
    return o;
}

[[noreturn]] void unsupported(const provider_uri& uri) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": scheme \"" + uri.scheme +
                              "\" is not supported by this build; use one of: " + supported_schemes());
}

}  // namespace

std::string supported_schemes() {
    std::string schemes = "memory:, sqlite:";
#ifdef SHEDLOCK_CLI_WITH_REDIS
    schemes += ", redis://";
#endif
    return schemes;
}

opened_provider open_provider(const std::string& text, const open_options& options) {
    const provider_uri uri = parse_provider_uri(text);
    opened_provider opened;
    opened.kind = uri.scheme;
    opened.display = uri.redacted();
    if (uri.scheme == "memory") {
        uri_options(uri).finish();
        opened.provider = std::make_unique<providers::memory_lock_provider>();
        return opened;
    }
    if (uri.scheme == "sqlite") {
        auto o = sqlite_from_uri(uri);
        o.create_schema_if_missing = o.create_schema_if_missing || options.create_schema;
        auto provider = providers::make_sqlite_lock_provider(o);
        opened.sql = provider.get();
        opened.provider = std::move(provider);
        return opened;
    }
#ifdef SHEDLOCK_CLI_WITH_REDIS
    if (uri.scheme == "redis") {
        opened.provider = providers::make_redis_lock_provider(providers::redis_options_from_uri(uri));
        return opened;
    }
#endif
    unsupported(uri);
}

std::string schema_for(const std::string& text) {
    const provider_uri uri = parse_provider_uri(text);
    if (uri.scheme == "memory" || uri.scheme == "redis") return "";
    if (uri.scheme == "sqlite") return providers::make_sqlite_dialect()->schema_sql(providers::sql::table_name(sqlite_from_uri(uri).table));
    unsupported(uri);
}

}  // namespace shedlock::cli
