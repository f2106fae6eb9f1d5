// End-to-end: passwords named by the provider URI instead of written in it (password_env,
// password_file), and what the commands of `shedlock run` and `shedlock daemon` inherit of them.
#include "cli_backends.hpp"
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

const std::string password = "shedlock-test-pw";  // what every providers/*/server.sh sets
const std::string variable = "SHEDLOCK_TEST_SECRET_PW";

/// Every test server's URI with its password cut out and `option` added (plus a table or
/// prefix of this test's own, created on first use).
std::vector<std::string> server_uris_with(const std::string& option, const std::string& table) {
    std::vector<std::string> uris;
    for (const char* var : {"SHEDLOCK_TEST_POSTGRES_URI", "SHEDLOCK_TEST_MYSQL_URI", "SHEDLOCK_TEST_REDIS_URI"}) {
        std::string uri = test_server_uri(var);
        const auto at = uri.find(":" + password + "@");
        REQUIRE(at != std::string::npos);
        uri.replace(at, password.size() + 2, "@");
        const bool redis = uri.rfind("redis:", 0) == 0;
        uri += "?" + option + (redis ? "&prefix=" + table + "-" + std::to_string(::getpid())
                                     : "&table=" + table + "&runs_table=" + table + "_runs&create_schema=true");
        uris.push_back(uri);
    }
    return uris;
}

/// Sets an environment variable for this scope (the CLI processes inherit it).
struct scoped_env {
    scoped_env(const std::string& name, const std::string& value) : name_(name) { ::setenv(name.c_str(), value.c_str(), 1); }
    ~scoped_env() { ::unsetenv(name_.c_str()); }
    std::string name_;
};

}  // namespace

TEST_CASE("cli run: the variable named by password_env is not in the command's environment", "[cli][secrets]") {
    const scoped_env secret(variable, password);
    for (const auto& uri : server_uris_with("password_env=" + variable, "cli_secret_run")) {
        auto r = run_cli({"run", "-p", uri, "-n", "secret-env", "--at-most", "PT1M", "--", "env"});
        INFO(uri << "\n" << r.err);
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Contains("SHEDLOCK_LOCK_NAME=secret-env"));  // the command ran, with its own variables
        CHECK_THAT(r.out, !Contains(variable + "="));
    }
}

TEST_CASE("cli daemon: the variable named by password_env is not in the commands' environment", "[cli][secrets]") {
    const scoped_env secret(variable, password);
    const std::string uri = server_uris_with("password_env=" + variable, "cli_secret_daemon").front();
    const std::string out = scratch_dir() + "/daemon-env.txt";
    const std::string config = scratch_dir() + "/secret-daemon.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"" << uri << "\"\ndefault_lock_at_most_for = \"PT1M\"\n\n"
                          << "[tasks.dump]\ncron = \"* * * * * *\"\nlock_name = \"secret-daemon-" << ::getpid()
                          << "-{datetime}\"\ncommand = [\"sh\", \"-c\", \"env > " << out << ".part && mv " << out
                          << ".part " << out << "\"]\n";
    const pid_t daemon = start_cli({"daemon", "-c", config});
    const bool ran = wait_for_file(out, 10);
    ::kill(daemon, SIGTERM);
    CHECK(wait_cli(daemon) == 0);
    INFO(uri);
    REQUIRE(ran);
    const std::string env = read_file(out);
    CHECK_THAT(env, Contains("SHEDLOCK_TASK=dump"));
    CHECK_THAT(env, !Contains(variable + "="));
}

TEST_CASE("cli run: a password file works, and one every user may read is refused by name", "[cli][secrets]") {
    const std::string file = scratch_dir() + "/db-password";
    std::ofstream(file) << password << "\n";
    ::chmod(file.c_str(), 0600);
    for (const auto& uri : server_uris_with("password_file=" + file, "cli_secret_file")) {
        auto r = run_cli({"run", "-p", uri, "-n", "secret-file", "--at-most", "PT1M", "--", "true"});
        INFO(uri << "\n" << r.err);
        CHECK(r.status == 0);
    }
    ::chmod(file.c_str(), 0644);
    const std::string uri = server_uris_with("password_file=" + file, "cli_secret_file").front();
    auto r = run_cli({"run", "-p", uri, "-n", "secret-file", "--at-most", "PT1M", "--", "true"});
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains(file) && Contains("readable by every user") && Contains("chmod 600"));
}
