// The lock provider's URI on every SQL server backend: every key the servers share read as
// written, the backend's own keys, and bad URIs refused with a clear error that never shows the
// password. The examples are the backend's (context::uris): its schemes, keys and spellings.
#include "sql_server_suite.hpp"

using namespace shedlock::test::sql_server;
using Catch::Matchers::Contains;

SQL_SERVER_CASE("{name} URIs: every key, the {alias} alias and clear errors without the password", "[uri]") {
    const auto& b = backend();
    const auto& examples = b.uris;
    const lock_options o = b.read_lock_uri(examples.every_key);
    const uri_keys& read = examples.read;
    CHECK(o.host == read.host);
    CHECK(o.port == read.port);
    CHECK(o.database == read.database);
    CHECK(o.user == read.user);
    CHECK(o.password == std::optional<std::string>{read.password});
    CHECK(o.table == read.table);
    CHECK(o.use_db_time == read.use_db_time);
    CHECK(o.pool_size == read.pool_size);
    CHECK(o.connect_timeout == read.connect_timeout);
    CHECK(o.statement_timeout == read.statement_timeout);
    CHECK(o.create_schema_if_missing == read.create_schema_if_missing);
    CHECK(o.redacted_uri(b.scheme) == examples.redacted);
    if (examples.own_checks) examples.own_checks(examples.every_key);

    for (const auto& [uri, says] : examples.refused) {
        INFO(uri);
        CHECK_THAT(error_text([&] { (void)b.read_lock_uri(uri); }), Contains(says) && !Contains("s3cret"));
    }
}
