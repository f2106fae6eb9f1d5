#include "postgres_pooler.hpp"

#include <charconv>
#include <cstdlib>

namespace shedlock::providers::detail {
namespace {

using pooler_kind = postgres_options::pooler_kind;

std::string cell(const sql::sql_result& probe, std::size_t column) {
    if (probe.rows.size() != 1 || probe.rows[0].size() < 2 || !probe.rows[0][column]) return {};
    return *probe.rows[0][column];
}

/// `name` as a quoted SQL identifier.
std::string identifier(const std::string& name) {
    std::string out = "\"";
    for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

storage_error unreadable_probe(const std::string& shown) {
    return storage_error(storage_category::invalid_data, retry_advice::permanent,
                         "PostgreSQL " + shown + ": the connection probe (" + pooler_probe_sql +
                             ") returned no backend PID and DateStyle; is it a PostgreSQL server? (pooler=none "
                             "skips the probe)");
}

/// The session's DateStyle is not ISO: the fix depends on where it came from.
storage_error not_iso(const postgres_options& options, const std::string& date_style, bool pooled,
                      const std::string& shown) {
    const char* from_environment = std::getenv("PGDATESTYLE");
    const std::string fix =
        from_environment ? "unset PGDATESTYLE in this process's environment (libpq sends it to the server)"
        : pooled ? "run ALTER ROLE " + identifier(options.user) +
                       " SET DateStyle = 'ISO, MDY' (or ALTER DATABASE) on the server, then have the pooler open new "
                       "server connections (PgBouncer: RECONNECT on its console, or a restart)"
                 : "run ALTER ROLE " + identifier(options.user) + " SET DateStyle = 'ISO, MDY' on the server";
    return storage_error(storage_category::misconfigured, retry_advice::permanent,
                         "PostgreSQL " + shown + ": the session's DateStyle is \"" + date_style +
                             "\" and times are read back in ISO; nothing was written. Fix: " + fix);
}

}  // namespace

const char* const pooler_probe_sql = "SELECT pg_backend_pid(), current_setting('DateStyle')";

bool sends_startup_options(const postgres_options& options) { return options.pooler != pooler_kind::pgbouncer; }

bool retries_without_startup_options(const postgres_options& options, const std::string& message) {
    return options.pooler == pooler_kind::auto_detect &&
           message.find("unsupported startup parameter") != std::string::npos;
}

bool pooled_after_probe(const postgres_options& options, bool options_sent, int reported_pid,
                        const sql::sql_result& probe, const std::string& shown) {
    const std::string pid_text = cell(probe, 0), date_style = cell(probe, 1);
    int server_pid = 0;
    const auto read = std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), server_pid);
    if (read.ec != std::errc() || read.ptr != pid_text.data() + pid_text.size() || date_style.empty())
        throw unreadable_probe(shown);
    const bool pooled = options.pooler == pooler_kind::pgbouncer || !options_sent || server_pid != reported_pid;
    // Checked on every connection, pooled or not: libpq sends PGDATESTYLE from the environment as
    // a startup parameter, which outranks the DateStyle in `options`.
    if (date_style.rfind("ISO,", 0) != 0 && date_style != "ISO") throw not_iso(options, date_style, pooled, shown);
    return pooled;
}

storage_error probe_failure(const storage_error& failure, const std::string& shown) {
    if (failure.advice() != retry_advice::in_doubt) return failure;
    // The failure's own words, without the parts this provider added that the probe contradicts
    // (the server named again; "may have been applied"): e.g. PgBouncer's "server login has
    // been failing, try again later (server_login_retry)" after the server restarted.
    std::string why = failure.what();
    const std::string prefix = "PostgreSQL " + shown + ": ", doubt = std::string("; ") + may_have_been_applied;
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    if (why.size() >= doubt.size() && why.compare(why.size() - doubt.size(), doubt.size(), doubt) == 0)
        why.resize(why.size() - doubt.size());
    return storage_error(failure.category(), retry_advice::safe,
                         "PostgreSQL " + shown + ": the connection probe (" + pooler_probe_sql +
                             ") failed; nothing was written: " + why +
                             ". Is the server stopped or overloaded, or a pooler's pool full or its logins to the "
                             "server failing (PgBouncer: pool_size, query_wait_timeout, server_login_retry)?");
}

}  // namespace shedlock::providers::detail
