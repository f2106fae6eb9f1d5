// End-to-end: a lock table created with ShedLock's own DDL under other table and column names
// (and Oracle-style upper case), shared by `shedlock run` processes and listed by `locks`, as a
// team moving from Java ShedLock has it. The tables are created with each database's own client
// (psql, mariadb, sqlite3), as an operator runs ShedLock's DDL.
#include "cli_backends.hpp"
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace column_mapping {

std::string shell_quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// `scheme://user:password@host:port/database` split up (the test servers' URIs have all parts).
struct server_parts {
    std::string user, password, host, port, database;
};

server_parts parts_of(const std::string& uri) {
    const auto start = uri.find("://") + 3;
    const auto at = uri.rfind('@');
    const auto colon = uri.find(':', start);
    const auto port = uri.find(':', at);
    const auto slash = uri.find('/', at);
    return {uri.substr(start, colon - start), uri_password(uri), uri.substr(at + 1, port - at - 1),
            uri.substr(port + 1, slash - port - 1), uri.substr(slash + 1, uri.find('?', slash) - slash - 1)};
}

/// Runs `sql` with the database's own command-line client; fails the test when it fails.
void run_sql(const std::string& uri, const std::string& sql) {
    std::string command;
    if (uri.rfind("sqlite:", 0) == 0) {
        command = "sqlite3 " + shell_quoted(uri.substr(7, uri.find('?') - 7)) + " " + shell_quoted(sql);
    } else if (uri.rfind("postgres", 0) == 0) {
        command = "psql -q -v ON_ERROR_STOP=1 " + shell_quoted(uri.substr(0, uri.find('?'))) + " -c " + shell_quoted(sql);
    } else {
        const auto p = parts_of(uri);
        command = "mariadb -h " + p.host + " -P " + p.port + " -u " + shell_quoted(p.user) + " -p" +
                  shell_quoted(p.password) + " " + shell_quoted(p.database) + " -e " + shell_quoted(sql);
    }
    INFO("running " << sql << " on " << uri.substr(0, uri.find(':')));
    REQUIRE(std::system(command.c_str()) == 0);
}

/// The three SQL test backends without a query (SQLite: a fresh file of this test).
std::vector<std::string> sql_servers(const std::string& file) {
    return {"sqlite:" + scratch_dir() + "/" + file + ".db", test_server_uri("SHEDLOCK_TEST_POSTGRES_URI"),
            test_server_uri("SHEDLOCK_TEST_MYSQL_URI")};
}

bool is_postgres(const std::string& uri) { return uri.rfind("postgres", 0) == 0; }
bool is_mysql(const std::string& uri) { return uri.rfind("mysql", 0) == 0 || uri.rfind("mariadb", 0) == 0; }

/// ShedLock's documented DDL for the backend of `uri`, under `table` and the columns given (the
/// MySQL name VARBINARY as docs/sql-providers.md asks; PostgreSQL TIMESTAMP, others TIMESTAMP(3)).
std::string shedlock_ddl(const std::string& uri, const std::string& table, const std::vector<std::string>& c) {
    const std::string ts = is_postgres(uri) ? "TIMESTAMP" : "TIMESTAMP(3)";
    const std::string name_type = is_mysql(uri) ? "VARBINARY(256)" : "VARCHAR(64)";
    return "CREATE TABLE " + table + "(" + c[0] + " " + name_type + " NOT NULL, " + c[1] + " " + ts + " NOT NULL, " + c[2] +
           " " + ts + " NOT NULL, " + c[3] + " VARCHAR(255) NOT NULL, PRIMARY KEY (" + c[0] + "))";
}

std::vector<std::string> run_args(const std::string& uri, const std::string& name, const std::string& command) {
    return {"run", "-p", uri, "-n", name, "--at-most", "PT1M", "--", "sh", "-c", command};
}

/// Tells a holder started by check_shared_by_two_runs to finish, also when a REQUIRE left early.
struct finish_signal {
    std::string path;
    ~finish_signal() { std::filesystem::create_directories(path); }
};

/// Two `shedlock run` processes on `uri`: the first holds until told to finish, the second is
/// refused (75) and listed as held by `locks`, then runs once the first has finished.
void check_shared_by_two_runs(const std::string& uri, const std::string& name) {
    const std::string dir = scratch_dir() + "/" + name + "-" + std::to_string(::getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // The holder gives up after 2 minutes whatever happens, so a failed test leaves no process.
    const pid_t first = start_cli(run_args(uri, name, "echo started > " + dir + "/started; i=0; while [ ! -e " + dir +
                                                          "/finish ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done"));
    finish_signal finish{dir + "/finish"};
    REQUIRE(wait_for_file(dir + "/started", 30));
    auto second = run_cli(run_args(uri, name, "touch " + dir + "/second-ran"));
    CHECK(second.status == 75);
    CHECK_FALSE(std::filesystem::exists(dir + "/second-ran"));
    auto listed = run_cli({"locks", "-p", uri, "--json"});
    INFO(listed.out << listed.err);
    CHECK(listed.status == 0);
    CHECK_THAT(listed.out, Contains("\"name\": \"" + name + "\"") && Contains("\"held\": true"));
    std::filesystem::create_directories(finish.path);
    CHECK(wait_cli(first) == 0);
    CHECK(run_cli(run_args(uri, name, "touch " + dir + "/second-ran")).status == 0);
    CHECK(std::filesystem::exists(dir + "/second-ran"));
}

std::string with_query(const std::string& uri, const std::string& query) {
    return uri + (uri.find('?') == std::string::npos ? "?" : "&") + query;
}

}  // namespace column_mapping

using namespace column_mapping;

TEST_CASE("cli: a ShedLock DDL table under custom table and column names is shared by two runs and listed", "[cli]") {
    const std::string table = "cli_mapped_" + std::to_string(::getpid());
    for (const auto& server : sql_servers("mapped")) {
        INFO(server.substr(0, server.find(':')));
        run_sql(server, "DROP TABLE IF EXISTS " + table);
        run_sql(server, shedlock_ddl(server, table, {"job", "until_ts", "at_ts", "by_host"}));
        const std::string uri =
            with_query(server, "table=" + table + "&columns=name:job,lock_until:until_ts,locked_at:at_ts,locked_by:by_host");
        check_shared_by_two_runs(uri, "mapped-job");
        auto doctor = run_cli({"doctor", "-p", uri});
        CHECK(doctor.status == 0);
        CHECK_THAT(doctor.out, Contains("WITHOUT fencing_token"));  // ShedLock's DDL: no fencing column
        run_sql(server, "DROP TABLE " + table);
    }
}

TEST_CASE("cli: an Oracle-style upper-case ShedLock table is shared with upper_case=true", "[cli]") {
    const std::string table = "CLI_UPPER_" + std::to_string(::getpid());
    for (const auto& server : sql_servers("upper")) {
        INFO(server.substr(0, server.find(':')));
        const std::string q = is_mysql(server) ? "`" : "\"";
        run_sql(server, "DROP TABLE IF EXISTS " + q + table + q);
        run_sql(server, shedlock_ddl(server, q + table + q,
                                     {q + "NAME" + q, q + "LOCK_UNTIL" + q, q + "LOCKED_AT" + q, q + "LOCKED_BY" + q}));
        check_shared_by_two_runs(with_query(server, "table=cli_upper_" + std::to_string(::getpid()) + "&upper_case=true"),
                                 "upper-job");
        run_sql(server, "DROP TABLE " + q + table + q);
    }
}

TEST_CASE("cli: bad column mappings are configuration errors, exit 78 naming the value, before any connection", "[cli]") {
    // Port 9 (discard) answers nothing: a connection attempt would give 69, not 78.
    const std::string unreachable = "postgresql://u:pw@127.0.0.1:9/db?connect_timeout=1s&columns=";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"nmae:job", "unknown column key \"nmae\""},
        {"name:job,name:job2", "key \"name\" is given twice"},
        {"name:job,locked_by:JOB", "column \"JOB\" is used for two keys"},
        {"lock_until:locked_at", "column \"locked_at\" is used for two keys"},
        {"name:job%3Bdrop", "column \"job;drop\" for name is not a plain identifier"},
        {"name", "has no ':'"},
        {"name:", "column \"\" for name is not a plain identifier"}};
    for (const auto& [mapping, message] : cases) {
        for (const auto& command : std::vector<std::vector<std::string>>{
                 {"schema", "print", "-p", unreachable + mapping},
                 {"locks", "-p", unreachable + mapping},
                 {"run", "-p", unreachable + mapping, "-n", "x", "--at-most", "PT1M", "--", "true"}}) {
            auto r = run_cli(command);
            INFO(command.front() << " " << mapping << ": " << r.err);
            CHECK(r.status == 78);
            CHECK_THAT(r.err, Contains(message) && Contains("columns \""));
        }
    }
    CHECK(run_cli({"schema", "print", "-p", "sqlite:x.db?upper_case=maybe"}).status == 78);
}

TEST_CASE("cli schema print: mapped and upper-case names, run and claims tables keep their own", "[cli]") {
    auto mapped = run_cli({"schema", "print", "-p", "postgresql://u@h/db?table=jobs&columns=name:job,fencing_token:fence"});
    CHECK(mapped.status == 0);
    CHECK_THAT(mapped.out, Contains("CREATE TABLE IF NOT EXISTS \"jobs\"") && Contains("\"job\" VARCHAR(64)") &&
                               Contains("\"lock_until\" TIMESTAMP NOT NULL") && Contains("\"fence\" BIGINT"));
    auto upper = run_cli({"schema", "print", "-p", "mysql://u@h/db?table=ops.jobs&columns=locked_by:host&upper_case=true"});
    CHECK(upper.status == 0);
    CHECK_THAT(upper.out, Contains("`OPS`.`JOBS`") && Contains("`HOST` VARCHAR(255)") && Contains("`LOCK_UNTIL` DATETIME(3)") &&
                              Contains("`shedlock_runs`") && Contains("`shedlock_claims`"));
}

namespace column_roles {

/// A table ShedLock's DDL would not make: an id key and a job column that nothing makes unique.
std::string table_without_unique_name(const std::string& uri, const std::string& table) {
    const std::string id = is_postgres(uri) ? "id BIGSERIAL PRIMARY KEY"
                           : is_mysql(uri)  ? "id BIGINT AUTO_INCREMENT PRIMARY KEY"
                                            : "id INTEGER PRIMARY KEY AUTOINCREMENT";
    const std::string ts = is_postgres(uri) ? "TIMESTAMP" : "TIMESTAMP(3)";
    return "CREATE TABLE " + table + " (" + id + ", job VARCHAR(64) NOT NULL, lock_until " + ts + " NOT NULL, locked_at " +
           ts + " NOT NULL, locked_by VARCHAR(255) NOT NULL)";
}

/// `run`, `locks` and `doctor` with `uri` all exit 78 with `message`, and the command never runs.
void check_refused_at_start_up(const std::string& uri, const std::string& message) {
    const std::string ran = scratch_dir() + "/roles-ran-" + std::to_string(::getpid());
    std::filesystem::remove(ran);
    auto run = run_cli(run_args(uri, "roles", "touch " + ran));
    INFO(uri << "\nrun: " << run.err);
    CHECK(run.status == 78);
    CHECK_THAT(run.err, Contains(message));
    CHECK_FALSE(std::filesystem::exists(ran));
    auto locks = run_cli({"locks", "-p", uri});
    CHECK(locks.status == 78);
    CHECK_THAT(locks.err, Contains(message));
    auto doctor = run_cli({"doctor", "-p", uri});
    INFO("doctor: " << doctor.out << doctor.err);
    CHECK(doctor.status == 78);
    CHECK_THAT(doctor.out + doctor.err, Contains(message));
}

}  // namespace column_roles

using namespace column_roles;

TEST_CASE("cli: mapped columns that cannot play their role are configuration errors at start-up, nothing written",
          "[cli]") {
    const std::string suffix = std::to_string(::getpid());
    for (const auto& server : sql_servers("roles")) {
        INFO(server.substr(0, server.find(':')));
        const std::string shedlock_table = "cli_roles_" + suffix, applied = "cli_roles_applied_" + suffix,
                          keyless = "cli_roles_keyless_" + suffix;
        for (const auto& t : {shedlock_table, applied, keyless}) run_sql(server, "DROP TABLE IF EXISTS " + t);
        run_sql(server, shedlock_ddl(server, shedlock_table, {"name", "lock_until", "locked_at", "locked_by"}));
        run_sql(server, table_without_unique_name(server, keyless));
        REQUIRE(run_cli({"schema", "apply", "-p", with_query(server, "table=" + applied)}).status == 0);
        const auto on = [&](const std::string& table, const std::string& columns) {
            return with_query(server, "table=" + table + "&columns=" + columns);
        };
        // B1: MariaDB's ON DUPLICATE KEY inserted a second row for a name that is not unique.
        check_refused_at_start_up(on(shedlock_table, "name:locked_by,locked_by:name"),
                                  "column \"locked_by\" (name) is neither the primary key on its own nor alone in a unique index");
        check_refused_at_start_up(on(keyless, "name:job"), "column \"job\" (name) is neither the primary key");
        // B3: a type mismatch used to reach the server at the first acquire and exit 69.
        check_refused_at_start_up(on(shedlock_table, "name:lock_until,lock_until:name"),
                                  "column \"lock_until\" (name) is ");
        check_refused_at_start_up(on(applied, "fencing_token:locked_by,locked_by:fencing_token"),
                                  "column \"fencing_token\" (locked_by) is ");
        check_refused_at_start_up(on(applied, "locked_at:locked_by,locked_by:locked_at"),
                                  "column \"locked_by\" (locked_at) is ");
        // Q1: a fencing column named explicitly must exist (only the default one may be absent).
        check_refused_at_start_up(on(applied, "fencing_token:tok"), "column \"tok\" (fencing_token) does not exist");
        // System columns are not user columns.
        const std::string system_column = is_postgres(server) ? "ctid" : is_mysql(server) ? "no_such_column" : "rowid";
        check_refused_at_start_up(on(applied, "locked_by:" + system_column),
                                  "column \"" + system_column + "\" (locked_by) does not exist");
        if (is_postgres(server))
            check_refused_at_start_up(on(applied, "fencing_token:xmin"), "column \"xmin\" (fencing_token) does not exist");
        auto listed = run_cli({"locks", "-p", with_query(server, "table=" + applied), "--json"});
        CHECK(listed.status == 0);
        CHECK_THAT(listed.out, !Contains("\"roles\""));  // no refused start-up wrote a record
        for (const auto& t : {shedlock_table, applied, keyless}) run_sql(server, "DROP TABLE " + t);
    }
}

TEST_CASE("cli schema apply: an existing table without the mapped columns is a configuration error", "[cli]") {
    const std::string table = "cli_apply_plain_" + std::to_string(::getpid());
    for (const auto& server : sql_servers("apply_plain")) {
        INFO(server.substr(0, server.find(':')));
        run_sql(server, "DROP TABLE IF EXISTS " + table);
        REQUIRE(run_cli({"schema", "apply", "-p", with_query(server, "table=" + table)}).status == 0);
        auto mapped = run_cli({"schema", "apply", "-p", with_query(server, "table=" + table + "&columns=name:job")});
        INFO(mapped.out << mapped.err);
        CHECK(mapped.status == 78);
        CHECK_THAT(mapped.err, Contains("column \"job\" (name) does not exist") && Contains("columns=name:COLUMN"));
        CHECK_THAT(mapped.out, !Contains("is ready"));
        run_sql(server, "DROP TABLE " + table);
    }
}

TEST_CASE("cli doctor: locked_at after lock_until (a client with the two columns swapped) is a warning", "[cli]") {
    const std::string table = "cli_swapped_" + std::to_string(::getpid());
    for (const auto& server : sql_servers("swapped")) {
        INFO(server.substr(0, server.find(':')));
        run_sql(server, "DROP TABLE IF EXISTS " + table);
        const std::string plain = with_query(server, "table=" + table);
        REQUIRE(run_cli({"schema", "apply", "-p", plain}).status == 0);
        // Same types, so no catalog fact tells the swap; the minimum hold keeps the swapped
        // "lock_until" (the real locked_at) a minute after the real lock_until it wrote.
        auto swapped = run_cli({"run", "-p", with_query(plain, "columns=locked_at:lock_until,lock_until:locked_at"), "-n",
                                "swapped", "--at-most", "PT2M", "--at-least", "PT1M", "--", "true"});
        REQUIRE(swapped.status == 0);
        auto doctor = run_cli({"doctor", "-p", plain});
        INFO(doctor.out << doctor.err);
        CHECK_THAT(doctor.out, Contains("lock \"swapped\": locked_at is after lock_until") &&
                                   Contains("same columns= mapping"));
        run_sql(server, "DROP TABLE " + table);
    }
}

TEST_CASE("cli locks: an unreadable SQLite record names the column and the value, not an exception", "[cli]") {
    const std::string uri = "sqlite:" + scratch_dir() + "/unreadable-" + std::to_string(::getpid()) + ".db";
    std::filesystem::remove(uri.substr(7));
    REQUIRE(run_cli({"schema", "apply", "-p", uri}).status == 0);
    REQUIRE(run_cli(run_args(uri, "odd", "true")).status == 0);
    run_sql(uri, "UPDATE shedlock SET fencing_token = 'by-host-1' WHERE name = 'odd'");
    auto listed = run_cli({"locks", "-p", uri});
    INFO(listed.out << listed.err);
    CHECK_THAT(listed.out, Contains("fencing_token column \"fencing_token\" \"by-host-1\" is not an integer"));
    CHECK_THAT(listed.out, !Contains("stoll"));
}

TEST_CASE("cli: control, NUL and bidi characters in a column mapping are shown escaped", "[cli]") {
    const std::string base = "postgresql://u:pw@127.0.0.1:9/db?columns=name:";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"job%0Aevil", "job\\x0aevil"}, {"job%1B[31m", "job\\x1b[31m"}, {"job%E2%80%AEtxt", "job\\xe2\\x80\\xaetxt"},
        {"job%00tail", "job\\x00tail"}};
    for (const auto& [mapping, shown] : cases) {
        auto r = run_cli({"schema", "print", "-p", base + mapping});
        INFO(mapping << ": " << r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains(shown) && Contains("is not a plain identifier"));
        CHECK(r.err.find('\x1b') == std::string::npos);
        CHECK(r.err.find("\xE2\x80\xAE") == std::string::npos);
    }
}

TEST_CASE("cli run: a full INTEGER fencing column is exit 78 naming the column and the fix, the command not run",
          "[cli]") {
    const std::string table = "cli_full_token_" + std::to_string(::getpid());
    for (const auto& server : {test_server_uri("SHEDLOCK_TEST_POSTGRES_URI"), test_server_uri("SHEDLOCK_TEST_MYSQL_URI")}) {
        INFO(server.substr(0, server.find(':')));
        const bool postgres = is_postgres(server);
        const std::string ts = postgres ? "TIMESTAMP" : "DATETIME(3)";
        const std::string an_hour_ago = postgres ? "now() AT TIME ZONE 'UTC' - interval '1 hour'"
                                                 : "UTC_TIMESTAMP(3) - INTERVAL 1 HOUR";
        run_sql(server, "DROP TABLE IF EXISTS " + table);
        run_sql(server, "CREATE TABLE " + table + " (name VARCHAR(64) PRIMARY KEY, lock_until " + ts +
                            " NOT NULL, locked_at " + ts + " NOT NULL, locked_by VARCHAR(255) NOT NULL, fencing_token "
                            "INTEGER NOT NULL DEFAULT 0)");
        run_sql(server, "INSERT INTO " + table + " VALUES ('full-job', " + an_hour_ago + ", " + an_hour_ago +
                            ", 'someone', 2147483647)");
        const std::string marker = scratch_dir() + "/full-token-ran";
        std::filesystem::remove(marker);
        auto run = run_cli({"run", "-p", with_query(server, "table=" + table), "-n", "full-job", "--at-most", "30s", "--",
                            "touch", marker});
        CHECK(run.status == 78);
        CHECK_THAT(run.err, Contains("fencing_token") && Contains(table) && Contains("BIGINT", Catch::CaseSensitive::No));
        CHECK_FALSE(std::filesystem::exists(marker));
        run_sql(server, "DROP TABLE " + table);
    }
}
