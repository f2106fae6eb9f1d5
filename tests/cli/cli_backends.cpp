#include "cli_backends.hpp"

#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>

namespace shedlock::test {

std::string test_server_uri(const char* var) {
    const char* uri = std::getenv(var);
    if (uri == nullptr || *uri == '\0')
        FAIL(var << " is not set: this test needs that server; run it through scripts/test.sh, or start the server "
                    "with `eval \"$(providers/<name>/server.sh start /tmp/somedir)\"`");
    return uri;
}

std::vector<std::string> backend_uris(const std::string& table) {
    std::vector<std::string> uris{"sqlite:" + scratch_dir() + "/" + table + ".db?table=" + table};
    for (const char* var : {"SHEDLOCK_TEST_POSTGRES_URI", "SHEDLOCK_TEST_MYSQL_URI"})  // own run table too
        uris.emplace_back(test_server_uri(var) + "?table=" + table + "&runs_table=" + table + "_runs");
    uris.emplace_back(test_server_uri("SHEDLOCK_TEST_REDIS_URI") + "?prefix=" + table + "-" + std::to_string(::getpid()));
    for (const auto& uri : uris) {
        const auto applied = run_cli({"schema", "apply", "-p", uri});
        INFO(uri << ": " << applied.err);
        REQUIRE(applied.status == 0);
    }
    return uris;
}

std::string uri_password(const std::string& uri) {
    const auto authority = uri.find("://");
    if (authority == std::string::npos) return {};
    const auto end = uri.find_first_of("/?#", authority + 3);
    const std::string host_part = uri.substr(authority + 3, end == std::string::npos ? std::string::npos : end - authority - 3);
    const auto at = host_part.rfind('@');
    if (at == std::string::npos) return {};
    const auto colon = host_part.find(':');
    return colon < at ? host_part.substr(colon + 1, at - colon - 1) : std::string{};
}

}  // namespace shedlock::test
