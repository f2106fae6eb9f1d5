#pragma once
// The shared suites of the SQL-server backends (PostgreSQL, MySQL/MariaDB): URI, schema, access,
// time, frozen-server, retry-advice, run-store and idempotency cases (shedlock_sql_server_suite)
// and stop/start cases (shedlock_sql_server_restart_suite), written once, run against each
// backend's real test server.
// Each backend's test folder defines backend_words and make_backend() in one small file; the
// cases keep the names they had in the backends' own files ("postgres: ...", "mysql run store:
// ...").

#include <shedlock/idempotency_store.hpp>
#include <shedlock/providers/sql/server_options.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>
#include <shedlock/run_store.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::test::sql_server {

namespace sql = providers::sql;

/// The parts of a backend's lock options that every SQL server provider has (its own options
/// derive from both), so that one case can set them on either backend.
struct lock_options : sql::sql_lock_options, sql::server_options {};

/// A run store's options read from a URI: the run table's part and the server's.
struct run_uri_parts {
    sql::sql_run_options run;
    sql::server_options server;
};

/// The words a backend lends to test names: literals, because cases register before main().
struct case_words {
    const char* name;          ///< "postgres": the first word of every case's name and its tag
    const char* qualified_by;  ///< what qualifies a table name: "schema", "database"
    const char* kill_words;    ///< how an operator ends a session: "pg_terminate_backend"
    const char* alias_words;   ///< what its URI case calls the alias scheme: "scheme", "mariadb"
};

/// A URI with every key the SQL servers share, as the URI case expects it read.
struct uri_keys {
    std::string host;
    std::uint16_t port;
    std::string database, user, password, table;
    bool use_db_time;
    std::size_t pool_size;
    std::chrono::milliseconds connect_timeout, statement_timeout;
    bool create_schema_if_missing;
};

/// The URI case's examples of one backend.
struct uri_examples {
    std::string every_key;   ///< a URI (password "s3cret") with every key of uri_keys, and more
    uri_keys read;           ///< what every_key says
    std::string redacted;    ///< every_key as messages show it
    /// Bad URIs (password "s3cret") and words each one's error must contain.
    std::vector<std::pair<std::string, std::string>> refused;
    /// Checks of the backend's own keys, given every_key (or nothing).
    std::function<void(const std::string&)> own_checks;
};

/// One backend under the shared suites: how to reach its test server, make its parts, disturb
/// it, and what it says where the backends rightly differ.
struct context {
    std::string scheme;            ///< shown in redacted URIs: "postgresql"
    std::string alias_scheme;      ///< the other scheme it accepts: "postgres", "mariadb"
    std::string server_env;        ///< control_server()'s prefix: "SHEDLOCK_TEST_POSTGRES"
    std::string password;          ///< the test server's password, never to be shown
    std::function<std::string()> uri;                      ///< the test server's URI
    std::function<void(const std::string&)> exec;          ///< SQL on a connection of its own
    // Made alike for every backend by with_parts() (backend_parts.hpp) from its functions.
    std::function<lock_options()> server_options{};        ///< the test server's URI, parsed
    std::function<std::unique_ptr<sql::sql_lock_provider>(const lock_options&, const shedlock::clock&)> make_provider{};
    std::function<run_uri_parts(const std::string&)> read_run_uri{};  ///< run-store options from a URI
    std::function<lock_options(const std::string&)> read_lock_uri{};  ///< the lock provider's options from a URI
    std::function<std::unique_ptr<run_store>(const run_uri_parts&)> open_run_store{};  ///< on the server it names
    /// An idempotency store on the server `parts` name, its claims table `parts.run.table`.
    std::function<std::unique_ptr<idempotency_store>(const run_uri_parts&)> open_claims{};
    /// An idempotency store on the test server, its claims table named by `table` of the options.
    std::function<std::unique_ptr<idempotency_store>(const sql::sql_run_options&, const shedlock::clock&)> make_claims{};
    std::function<void()> kill_own_connections{};          ///< ends this process's sessions, waits

    // What differs, as the backend says it.
    std::string quote_mark;                 ///< what its DDL puts around an identifier: "`"
    std::string lock_until_ddl;             ///< how the DDL in a missing-table error declares lock_until
    std::vector<std::string> run_ddl_parts;       ///< "{t}" = the table: what a missing run table's DDL says
    std::vector<std::string> claims_ddl_parts{};  ///< besides the common words, a missing claims table's DDL
    std::function<std::string(const std::string&)> java_plain_table_ddl;  ///< Java ShedLock's own table
    std::string auth_failure;               ///< the server's words for a wrong password
    std::function<std::string(const std::string&)> user_in_auth_error;  ///< how that error names a user
    std::string redacted_user_in_auth_error;    ///< the same with the user "***"
    std::function<std::string(const lock_options&)> table_qualifier;  ///< prepares one, returns it
    std::string session_timezone_env{};     ///< an environment variable that sets the session's zone, or ""
    std::string no_answer_error;            ///< a frozen server's error (deadline 3 s)
    std::string without_tls_query;          ///< the URI query that turns TLS off
    uri_examples uris;
    /// A new lock's first fencing token on the test server (PostgreSQL: the WAL timeline in the
    /// high bits, plus 1); each acquisition after it is one higher.
    std::function<std::int64_t()> first_token = [] { return std::int64_t{1}; };

    /// `name` as the backend's DDL quotes it.
    std::string quote(const std::string& name) const { return quote_mark + name + quote_mark; }
};

/// Defined by each backend's test folder (backend_parts.hpp makes what the backends share): its
/// words, constant so that cases can register with them before main(), and its context.
extern const case_words backend_words;
context make_backend();

/// backend_words.
const case_words& words();

/// The backend under test: make_backend(), made once.
const context& backend();

/// Options for the test server with a table name unique to this process.
lock_options options_for(const std::string& table);

/// A lock provider on the backend under test.
std::unique_ptr<sql::sql_lock_provider> make_provider(const lock_options& options,
                                                      const shedlock::clock& clock = system_clock::instance());

/// The message of what `fn` throws, or "(no error)": for cases that check many bad inputs.
std::string error_text(const std::function<void()>& fn);

/// Runs `statement` on a session the server ended while it idled: it must fail as unavailable,
/// advice safe, "was not sent" (nothing reached the server, so running it again is safe).
void check_fails_unsent(const std::function<void()>& statement);

/// After a kill: waits (5 s at most) until `count_left` (the first cell of a COUNT(*) of the
/// killed sessions) says "0", then a moment more, so that the server's goodbye has reached the
/// killed session's idle socket.
void wait_until_gone(const std::function<std::optional<std::string>()>& count_left);

/// `text` with "{t}" replaced by `table`.
std::string with_table(const std::string& text, const std::string& table);

/// A matcher: the string contains every one of `parts`.
class contains_all final : public Catch::MatcherBase<std::string> {
public:
    explicit contains_all(std::vector<std::string> parts) : parts_(std::move(parts)) {}
    bool match(const std::string& text) const override;
    std::string describe() const override;

private:
    std::vector<std::string> parts_;
};

/// Registers a case named `title` with "{name}", "{qualified_by}", "{kill}" and "{alias}" replaced by
/// the backend's words(), tagged "[<name>]" plus `tags`.
struct case_registrar {
    case_registrar(void (*run)(), const char* title, const char* tags, const char* file, std::size_t line);
};

}  // namespace shedlock::test::sql_server

#define SHEDLOCK_SQL_SERVER_CASE_IMPL(fn, title, tags)                                              \
    static void fn();                                                                              \
    static const ::shedlock::test::sql_server::case_registrar INTERNAL_CATCH_UNIQUE_NAME(sql_reg_)( \
        &fn, title, tags, __FILE__, __LINE__);                                                     \
    static void fn()

/// A TEST_CASE of the shared SQL-server suites; `title` may use the words() placeholders.
#define SQL_SERVER_CASE(title, tags) SHEDLOCK_SQL_SERVER_CASE_IMPL(INTERNAL_CATCH_UNIQUE_NAME(sql_case_), title, tags)
