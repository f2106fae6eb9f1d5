#include "cli_backends.hpp"

#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>

namespace shedlock::test {

std::vector<std::string> backend_uris(const std::string& table) {
    std::vector<std::string> uris{"sqlite:" + scratch_dir() + "/" + table + ".db?table=" + table};
    for (const char* var : {"SHEDLOCK_TEST_POSTGRES_URI", "SHEDLOCK_TEST_MYSQL_URI"})
        if (const char* uri = std::getenv(var))  // own run table too: schema apply creates both
            uris.emplace_back(std::string(uri) + "?table=" + table + "&runs_table=" + table + "_runs");
    if (const char* uri = std::getenv("SHEDLOCK_TEST_REDIS_URI"))
        uris.emplace_back(std::string(uri) + "?prefix=" + table + "-" + std::to_string(::getpid()));
    for (const auto& uri : uris) {
        const auto applied = run_cli({"schema", "apply", "-p", uri});
        INFO(uri << ": " << applied.err);
        REQUIRE(applied.status == 0);
    }
    return uris;
}

}  // namespace shedlock::test
