#include "postgres_pooler.hpp"

#include <charconv>

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
    if (pooled && date_style.rfind("ISO", 0) != 0)
        throw storage_error(storage_category::other, retry_advice::permanent,
                            "PostgreSQL " + shown + ": behind a pooler the server's DateStyle applies, and it is \"" +
                                date_style + "\"; times are read back in ISO: run ALTER ROLE " + identifier(options.user) +
                                " SET DateStyle = 'ISO, MDY' (or ALTER DATABASE) on the server");
    return pooled;
}

}  // namespace shedlock::providers::detail
