#pragma once
// Prepared statements that survive a pooler (PgBouncer 1.18 hands a server connection from
// client to client between transactions and does not track prepared statements): each lock
// statement is named after its text, so whoever prepared that name on a server connection
// prepared the same text, and any client may use it there. Shared by the blocking and the
// non-blocking connection; on a server without a pooler it works the same way.

#include <shedlock/providers/sql/sql_connection.hpp>

#include <libpq-fe.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

/// "shedlock_" + the text's length + a 64-bit FNV-1a hash of it: the same on every client and
/// every build (std::hash is neither), and far inside PostgreSQL's 63-byte names.
std::string statement_name_for(std::string_view sql);

/// SQLSTATEs of the course: Bind of a name this server connection does not have; Parse of a
/// name it has (another client prepared it between our two messages); Bind of a statement whose
/// table changed under it so that its result columns' types differ ("cached plan must not
/// change result type", e.g. after ALTER COLUMN fencing_token TYPE bigint), which the server
/// would answer on that server connection for every client until it closed.
inline constexpr std::string_view no_such_statement = "26000";
inline constexpr std::string_view statement_exists = "42P05";
inline constexpr std::string_view plan_result_changed = "0A000";

/// How a statement is sent: Bind+Execute of its name; Parse, Bind and Execute in one pipeline;
/// the same after a DEALLOCATE of the name, in the same pipeline.
enum class statement_course { bind, parse, reprepare };

/// The course to take after `failed` was answered with `sqlstate`, or none (the error is the
/// statement's). Every error rolls back the statement's implicit transaction, so a course taken
/// after one runs the statement once: bind -> 26000 -> parse, bind -> 0A000 -> reprepare,
/// parse -> 42P05 -> bind, reprepare -> 26000 (another client deallocated it) -> parse.
std::optional<statement_course> course_after(statement_course failed, std::string_view sqlstate);

/// `DEALLOCATE "name"` (names are statement_name_for's: letters, digits, underscores).
std::string deallocate_statement(const std::string& name);

/// What one client connection learned of where its statements live, for the course a call
/// starts with (one round trip when right, and no ERROR in the server's log):
/// - a direct connection knows: a text it ran is prepared (Bind), another is not (Parse);
/// - behind a pooler a text it ran is guessed prepared (Bind), and so is a new one unless its
///   last Bind missed: then the server connection is fresh or was reset (PgBouncer's session
///   pooling runs DISCARD ALL between clients), and a new text is parsed first;
/// - behind a pooler that loses its statements between calls (server_reset_query_always, or a
///   statement pooler with many server connections), misses_before_unnamed Binds in a row of
///   texts it ran missing: from then on this connection runs its statements unnamed (as
///   before statements were named), instead of two round trips and a parse for each.
class statement_guess {
public:
    static constexpr int misses_before_unnamed = 3;
    explicit statement_guess(bool pooled = false) : pooled_(pooled) {}
    void set_pooled(bool pooled) { pooled_ = pooled; }
    /// The course a call of `sql` starts with; none: the unnamed statement.
    std::optional<statement_course> first_course(std::string_view sql) const;
    /// What a named attempt of `sql` on `course` was answered (`sqlstate` empty: success).
    void learn(std::string_view sql, statement_course course, std::string_view sqlstate);

private:
    std::set<std::string, std::less<>> ran_;  // texts run named on this connection
    bool pooled_;
    bool parse_new_ = false;
    int lost_in_a_row_ = 0;
};

/// How many named attempts a statement gets before it runs once as the unnamed statement (a
/// pooler that switched server connections between each would send it round forever).
inline constexpr int prepared_statement_attempts = 4;

/// A result's rows as text (NULL: empty), affected_rows from PQcmdTuples; empty for null. Throws
/// std::runtime_error naming the command tag when its row count does not fit 64 bits.
sql::sql_result postgres_rows(const PGresult* result);

/// Runs `sql` with `values` as the prepared statement statement_name_for(sql), blocking: the
/// course `guess` says first, then course_after's on a miss (each learned by `guess`); after
/// prepared_statement_attempts misses, or when `guess` says so, the unnamed statement. Throws
/// pqxx::sql_error (with the SQLSTATE) for a statement the server refused and
/// pqxx::broken_connection for a lost connection, as libpqxx would.
sql::sql_result run_prepared_blocking(PGconn* conn, const std::string& sql, const std::vector<std::string>& values,
                                      statement_guess& guess);

}  // namespace shedlock::providers::detail
