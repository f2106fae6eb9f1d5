#pragma once
// The URI cases' checks on every SQL server backend: the keys they all read, and bad URIs
// refused without showing the password. Each backend keeps its case: its URIs and words differ.
#include "sql_server_suite.hpp"

#include <shedlock/provider_uri.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::test::sql_server {

/// The keys every SQL server's URI has, as a case expects them read.
struct uri_keys {
    std::string host;
    std::uint16_t port;
    std::string database, user, password, table;
    bool use_db_time;
    std::size_t pool_size;
    std::chrono::milliseconds connect_timeout, statement_timeout;
    bool create_schema_if_missing;
};

/// One check a key: `o`, a backend's options, read them as `expected` says.
template <class Options>
void check_uri_keys(const Options& o, const uri_keys& expected) {
    CHECK(o.host == expected.host);
    CHECK(o.port == expected.port);
    CHECK(o.database == expected.database);
    CHECK(o.user == expected.user);
    CHECK(o.password == std::optional<std::string>{expected.password});
    CHECK(o.table == expected.table);
    CHECK(o.use_db_time == expected.use_db_time);
    CHECK(o.pool_size == expected.pool_size);
    CHECK(o.connect_timeout == expected.connect_timeout);
    CHECK(o.statement_timeout == expected.statement_timeout);
    CHECK(o.create_schema_if_missing == expected.create_schema_if_missing);
}

/// One check a bad URI (its password "s3cret"): `Options` refuses it with a message that
/// contains the words paired with it and never the password.
template <class Options>
void check_uri_errors(const std::vector<std::pair<std::string, std::string>>& bad) {
    using Catch::Matchers::Contains;
    for (const auto& [uri, says] : bad) {
        INFO(uri);
        CHECK_THAT(error_text([&] { (void)Options::from_uri(parse_provider_uri(uri)); }),
                   Contains(says) && !Contains("s3cret"));
    }
}

}  // namespace shedlock::test::sql_server
