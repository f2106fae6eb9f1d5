// End-to-end: the CLI's backends are plug-in modules loaded when a URI names them. A SQLite run
// maps no other backend's client library, and a missing or mismatched module is a configuration
// error that names the file and the fix.
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string sqlite_uri() { return "sqlite:" + scratch_dir() + "/modules.db?create_schema=true"; }

/// A module directory of this test's own holding `files` (target name -> source path).
std::string module_dir_with(const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string dir = scratch_dir() + "/modules";
    std::filesystem::create_directories(dir);
    for (const auto& [name, source] : files)
        std::filesystem::copy_file(source, dir + "/" + name, std::filesystem::copy_options::overwrite_existing);
    return dir;
}

}  // namespace

TEST_CASE("cli run: only --config loads the config module (toml++, date-tz, the scheduler)", "[cli][modules]") {
    const std::vector<std::string> show_maps{"--", "sh", "-c", "cat /proc/$PPID/maps"};
    auto args = std::vector<std::string>{"run", "-p", sqlite_uri(), "-n", "plain", "--at-most", "10s"};
    args.insert(args.end(), show_maps.begin(), show_maps.end());
    const auto plain = run_cli(args);
    REQUIRE(plain.status == 0);
    for (const char* heavy : {"cli/config.so", "libtomlplusplus", "libdate-tz"}) {
        INFO(heavy);
        CHECK_THAT(plain.out, !Contains(heavy));
    }
    const std::string config = scratch_dir() + "/modules.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"" << sqlite_uri() << "\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    args = {"run", "-c", config, "--task", "t"};
    args.insert(args.end(), show_maps.begin(), show_maps.end());
    const auto configured = run_cli(args);
    INFO(configured.err);
    REQUIRE(configured.status == 0);
    CHECK_THAT(configured.out, Contains("cli/config.so") && Contains("libtomlplusplus"));
}

TEST_CASE("cli run: a SQLite run maps no other backend's client library", "[cli][modules]") {
    const auto r = run_cli({"run", "-p", sqlite_uri(), "-n", "modules", "--at-most", "10s", "--", "sh", "-c",
                            "cat /proc/$PPID/maps"});
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains("libsqlite3") && Contains("providers/sqlite.so"));
    for (const char* other : {"libpq", "libmariadb", "libhiredis", "libssl", "libcrypto", "postgres.so", "mysql.so",
                              "redis.so"}) {
        INFO(other);
        CHECK_THAT(r.out, !Contains(other));
    }
}

TEST_CASE("cli: a missing provider module names the file and the fix", "[cli][modules]") {
    ::setenv("SHEDLOCK_PROVIDER_DIR", module_dir_with({}).c_str(), 1);
    const auto r = run_cli({"run", "-p", sqlite_uri(), "-n", "modules", "--at-most", "10s", "--", "true"});
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("cannot load the sqlite provider module") && Contains("/modules/sqlite.so") &&
                          Contains("SHEDLOCK_PROVIDER_DIR"));
}

TEST_CASE("cli: a module that registers other schemes than this build declared is refused", "[cli][modules]") {
    // The memory module under the SQLite module's name: it loads, but registers memory:.
    ::setenv("SHEDLOCK_PROVIDER_DIR", module_dir_with({{"sqlite.so", SHEDLOCK_MEMORY_MODULE}}).c_str(), 1);
    const auto r = run_cli({"schema", "apply", "-p", sqlite_uri()});
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("sqlite.so registers the schemes memory:") && Contains("reinstall"));
}

TEST_CASE("cli: a file that is no shedlock module is refused before it runs", "[cli][modules]") {
    const std::string dir = module_dir_with({});
    {
        std::FILE* f = std::fopen((dir + "/redis.so").c_str(), "w");
        REQUIRE(f);
        std::fputs("not a shared object\n", f);
        std::fclose(f);
    }
    ::setenv("SHEDLOCK_PROVIDER_DIR", dir.c_str(), 1);
    const auto r = run_cli({"locks", "-p", "redis://127.0.0.1:1/0"});
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("cannot load the redis provider module") && Contains("redis.so"));
}
