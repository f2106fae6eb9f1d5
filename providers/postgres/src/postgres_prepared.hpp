#pragma once
// Prepared statements that survive a pooler (PgBouncer 1.18 hands a server connection from
// client to client between transactions and does not track prepared statements): each lock
// statement is named after its text, so whoever prepared that name on a server connection
// prepared the same text, and any client may use it there. Shared by the blocking and the
// non-blocking connection; on a server without a pooler it works the same way.

#include <shedlock/providers/sql/sql_connection.hpp>

#include <libpq-fe.h>

#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

/// "shedlock_" + the text's length + a 64-bit FNV-1a hash of it: the same on every client and
/// every build (std::hash is neither), and far inside PostgreSQL's 63-byte names.
std::string statement_name_for(std::string_view sql);

/// SQLSTATEs of the course: Bind of a name this server connection does not have; Parse of a
/// name it has (another client prepared it between our two messages).
inline constexpr std::string_view no_such_statement = "26000";
inline constexpr std::string_view statement_exists = "42P05";

/// How many named attempts a statement gets before it runs once as the unnamed statement (a
/// pooler that switched server connections between each would send it round forever).
inline constexpr int prepared_statement_attempts = 4;

/// A result's rows as text (NULL: empty), affected_rows from PQcmdTuples; empty for null. Throws
/// std::runtime_error naming the command tag when its row count does not fit 64 bits.
sql::sql_result postgres_rows(const PGresult* result);

/// Runs `sql` with `values` as the prepared statement statement_name_for(sql), blocking, in one
/// round trip when the guess `bind_first` is right:
/// - `bind_first`: Bind and Execute of the name; when the server connection lacks it (26000),
///   Parse, Bind and Execute in one pipeline;
/// - else that pipeline first; when the server connection has the name already (42P05: another
///   client prepared it there), Bind and Execute.
/// Either error runs nothing, and each is logged by the server as an ERROR: so a direct
/// connection guesses from what it prepared itself (never wrong, never an error), and a pooled
/// one binds first (an error only on a server connection new to the statement). After
/// prepared_statement_attempts of those, the unnamed statement. Throws pqxx::sql_error (with
/// the SQLSTATE) for a statement the server refused and pqxx::broken_connection for a lost
/// connection, as libpqxx would.
sql::sql_result run_prepared_blocking(PGconn* conn, const std::string& sql, const std::vector<std::string>& values,
                                      bool bind_first);

}  // namespace shedlock::providers::detail
