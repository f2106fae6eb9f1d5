#include "test_env.hpp"

#include <shedlock/error.hpp>
#include <shedlock/uri_password.hpp>

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

using namespace shedlock;
using Catch::Matchers::Contains;

namespace {

const std::string secret = "QXZJK-s3cret";  // text no message may contain

std::string secret_file(const std::string& name, const std::string& content, mode_t mode) {
    const std::string path = test::scratch_dir() + "/" + name;
    std::ofstream(path, std::ios::trunc) << content;
    ::chmod(path.c_str(), mode);
    return path;
}

std::optional<std::string> password_of(const std::string& text) {
    const auto uri = parse_provider_uri(text);
    uri_options query(uri);
    auto password = read_uri_password(uri, query);
    query.finish();  // both keys were taken
    return password;
}

std::string error_of(const std::string& text) {
    try {
        (void)password_of(text);
    } catch (const configuration_error& e) {
        return e.what();
    }
    return "(no error)";
}

struct scoped_env {
    scoped_env(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~scoped_env() { ::unsetenv(name_); }
    const char* name_;
};

}  // namespace

TEST_CASE("uri password: in the URI, or none", "[uri][password]") {
    CHECK(password_of("postgresql://u:" + secret + "@h/db") == secret);
    CHECK_FALSE(password_of("postgresql://u@h/db"));
}

TEST_CASE("uri password: password_file gives its first line without the line break", "[uri][password]") {
    CHECK(password_of("postgresql://u@h/db?password_file=" + secret_file("lf", secret + "\nsecond line\n", 0600)) == secret);
    CHECK(password_of("redis://h?password_file=" + secret_file("crlf", secret + "\r\n", 0640)) == secret);
    CHECK(password_of("mysql://u@h/db?password_file=" + secret_file("bare", secret, 0400)) == secret);
    CHECK(password_of("mysql://u@h/db?password_file=" + secret_file("spaces", " a b ", 0600)) == " a b ");
}

TEST_CASE("uri password: a password file that is missing, shared, empty or not a file is refused, naming it",
          "[uri][password]") {
    const std::string missing = test::scratch_dir() + "/missing";
    CHECK_THAT(error_of("postgresql://u@h/db?password_file=" + missing),
               Contains("password_file \"" + missing + "\" cannot be read") && Contains("No such file"));
    const std::string shared = secret_file("shared", secret + "\n", 0644);
    CHECK_THAT(error_of("postgresql://u@h/db?password_file=" + shared),
               Contains(shared) && Contains("readable by every user") && Contains("chmod 600") && !Contains(secret));
    const std::string empty = secret_file("empty", "\n" + secret + "\n", 0600);
    CHECK_THAT(error_of("postgresql://u@h/db?password_file=" + empty), Contains(empty) && Contains("empty first line"));
    CHECK_THAT(error_of("postgresql://u@h/db?password_file=" + test::scratch_dir()), Contains("not a regular file"));
}

// Before the fix, opening a FIFO blocked until a writer came (forever under cron); a first line
// longer than the 64 KiB read bound was sent cut short.
TEST_CASE("uri password: a FIFO is refused without waiting for a writer; an over-long first line is refused",
          "[uri][password]") {
    const std::string fifo = test::scratch_dir() + "/fifo";
    ::unlink(fifo.c_str());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(error_of("redis://h?password_file=" + fifo), Contains(fifo) && Contains("not a regular file"));
    const std::string long_line = secret_file("long", std::string(70 * 1024, 'a') + "\n", 0600);
    CHECK_THAT(error_of("redis://h?password_file=" + long_line), Contains(long_line) && Contains("longer than 65536 bytes"));
    const std::string at_bound = secret_file("bound", std::string(64 * 1024 - 1, 'b') + "\n", 0600);
    CHECK(password_of("redis://h?password_file=" + at_bound) == std::string(64 * 1024 - 1, 'b'));
}

TEST_CASE("uri password: password_env gives the variable's value, and refuses unset, empty or bad names",
          "[uri][password]") {
    const scoped_env set("SHEDLOCK_UNIT_PW", secret.c_str());
    CHECK(password_of("redis://h?password_env=SHEDLOCK_UNIT_PW") == secret);
    CHECK_THAT(error_of("redis://h?password_env=SHEDLOCK_UNIT_UNSET"),
               Contains("SHEDLOCK_UNIT_UNSET, which is not set") && Contains("export SHEDLOCK_UNIT_UNSET"));
    const scoped_env empty("SHEDLOCK_UNIT_EMPTY", "");
    CHECK_THAT(error_of("redis://h?password_env=SHEDLOCK_UNIT_EMPTY"), Contains("SHEDLOCK_UNIT_EMPTY, which is empty"));
    CHECK_THAT(error_of("redis://h?password_env=1BAD-NAME"), Contains("\"1BAD-NAME\" is not a variable name"));
}

TEST_CASE("uri password: only one source, and the message names the sources, never the password", "[uri][password]") {
    const scoped_env set("SHEDLOCK_UNIT_PW", secret.c_str());
    const std::string file = secret_file("one", secret, 0600);
    CHECK_THAT(error_of("postgresql://u:" + secret + "@h/db?password_env=SHEDLOCK_UNIT_PW"),
               Contains("in the URI and by password_env") && Contains("one way only") && !Contains(secret));
    CHECK_THAT(error_of("postgresql://u:" + secret + "@h/db?password_file=" + file),
               Contains("in the URI and by password_file") && !Contains(secret));
    CHECK_THAT(error_of("postgresql://u@h/db?password_env=SHEDLOCK_UNIT_PW&password_file=" + file),
               Contains("by password_file and by password_env"));
}

TEST_CASE("uri password: redaction shows where the password is, never the password", "[uri][password]") {
    const auto uri = parse_provider_uri("postgresql://u:" + secret + "@h/db?password_env=DB_PW&password_file=/run/pw&pw=x");
    CHECK(uri.redacted() == "postgresql://u:***@h/db?password_env=DB_PW&password_file=/run/pw&pw=***");
    CHECK(secret_environment_variables(uri) == std::vector<std::string>{"DB_PW"});
    CHECK(secret_environment_variables(parse_provider_uri("postgresql://u:" + secret + "@h/db")).empty());
}

TEST_CASE("uri secret: a second secret (sentinel_password) from the URI, a file or a variable, one way only",
          "[uri][password]") {
    const auto read = [](const std::string& text) {
        const auto uri = parse_provider_uri(text);
        uri_options query(uri);
        auto value = read_uri_secret(uri, query, "sentinel_password");
        query.finish();
        return value;
    };
    CHECK(read("redis-sentinel://s1/m?sentinel_password=" + secret) == secret);
    CHECK(read("redis-sentinel://s1/m?sentinel_password_file=" + secret_file("sentinel-pw", secret + "\n", 0600)) == secret);
    ::setenv("SHEDLOCK_UNIT_SENTINEL_PW", secret.c_str(), 1);
    const std::string by_env = "redis-sentinel://s1/m?sentinel_password_env=SHEDLOCK_UNIT_SENTINEL_PW";
    CHECK(read(by_env) == secret);
    CHECK_FALSE(read("redis-sentinel://s1/m").has_value());
    try {
        (void)read(by_env + "&sentinel_password=" + secret);
        FAIL("two sources were accepted");
    } catch (const configuration_error& e) {
        CHECK_THAT(e.what(), Contains("by sentinel_password and by sentinel_password_env"));
        CHECK_THAT(e.what(), !Contains(secret));
    }
    CHECK_THROWS_WITH(read("redis-sentinel://s1/m?sentinel_password_env=SHEDLOCK_UNIT_UNSET_PW"),
                      Contains("sentinel_password_env names SHEDLOCK_UNIT_UNSET_PW"));
    CHECK(parse_provider_uri(by_env + "&sentinel_password=x").redacted() ==
          "redis-sentinel://s1/m?sentinel_password=***&sentinel_password_env=SHEDLOCK_UNIT_SENTINEL_PW");
    CHECK(secret_environment_variables(parse_provider_uri(by_env + "&password_env=DB_PW")) ==
          std::vector<std::string>{"DB_PW", "SHEDLOCK_UNIT_SENTINEL_PW"});
    ::unsetenv("SHEDLOCK_UNIT_SENTINEL_PW");
}

TEST_CASE("uri_options::readable_file names the key and the path it cannot read", "[uri]") {
    const auto uri = parse_provider_uri("postgresql://h/db?ca=/nonexistent/ca.pem&dir=/tmp&ok=" +
                                        secret_file("ca.pem", "x", 0600));
    uri_options o(uri);
    CHECK_THROWS_WITH(o.readable_file("ca"), Contains("option ca=/nonexistent/ca.pem") && Contains("No such file"));
    CHECK_THROWS_WITH(o.readable_file("dir"), Contains("dir=/tmp") && Contains("not a regular file"));
    CHECK(o.readable_file("ok"));
    CHECK_FALSE(o.readable_file("absent"));
}
