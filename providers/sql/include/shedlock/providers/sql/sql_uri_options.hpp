#pragma once
/// \file
/// The provider-URI query options every SQL provider shares.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

namespace shedlock::providers::sql {

/// Reads `table`, `use_db_time`, `pool_size` and `create_schema` from `options` into `out`
/// (keys that are absent leave `out` unchanged). Bad values throw configuration_error naming the
/// key; the caller reads its own keys and then calls `options.finish()`.
void read_sql_uri_options(uri_options& options, sql_lock_options& out);

/// Throws configuration_error unless `uri.scheme` is one of `accepted` (the message lists them).
void require_scheme(const provider_uri& uri, std::initializer_list<const char*> accepted);

}  // namespace shedlock::providers::sql
