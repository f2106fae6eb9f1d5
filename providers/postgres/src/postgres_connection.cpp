#include "postgres_connection.hpp"
#include "postgres_error.hpp"
#include "postgres_pooler.hpp"
#include "postgres_prepared.hpp"
#include "postgres_servers.hpp"
#include "socket_deadline.hpp"

#include <shedlock/error.hpp>

#include <pqxx/except>
#include <pqxx/nontransaction>
#include <pqxx/result>

#include <poll.h>

namespace shedlock::providers::detail {
namespace {

/// TCP keepalive and tcp_user_timeout: a peer that vanished (host down, network cut) is noticed
/// by the kernel within about connect_timeout, also while a pooled connection sits idle. A peer
/// that still acknowledges TCP but never answers is the client-side deadline's (socket_deadline).
std::string tcp_liveness(const postgres_options& o) {
    const auto seconds = std::max<long long>(1, std::chrono::ceil<std::chrono::seconds>(o.connect_timeout).count());
    const auto probe_every = std::max<long long>(1, seconds / 3);
    return " keepalives=1 keepalives_idle=" + std::to_string(seconds) + " keepalives_interval=" +
           std::to_string(probe_every) + " keepalives_count=3 tcp_user_timeout=" +
           std::to_string(std::chrono::milliseconds(o.connect_timeout).count() + 1000 * seconds);
}

sql::sql_result rows_of(const pqxx::result& r) {
    sql::sql_result result;
    result.affected_rows = r.affected_rows();
    result.rows.reserve(r.size());
    for (const auto& row : r) {
        auto& out = result.rows.emplace_back();
        for (const auto& field : row)
            out.push_back(field.is_null() ? std::nullopt : std::optional<std::string>(field.c_str()));
    }
    return result;
}

}  // namespace

std::string postgres_quoted(const std::string& value) {
    std::string out = "'";
    for (char c : value) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
    }
    return out + "'";
}

std::string postgres_servers_conninfo(const postgres_options& o) {
    std::string hosts = o.host, ports = std::to_string(o.port);
    if (!o.servers.empty()) hosts.clear(), ports.clear();
    for (const auto& s : o.servers) {
        hosts += (hosts.empty() ? "" : ",") + s.host;
        ports += (ports.empty() ? "" : ",") + std::to_string(s.port);
    }
    std::string info = "host=" + postgres_quoted(hosts) + " port=" + postgres_quoted(ports);
    if (o.target != postgres_options::session_target::any)
        info += std::string(" target_session_attrs=") + libpq_target_name(o.target);
    return info;
}

std::string postgres_conninfo(const postgres_options& o, bool with_options,
                              std::optional<std::chrono::milliseconds> per_server, const std::string& servers) {
    const auto seconds = std::chrono::ceil<std::chrono::seconds>(per_server.value_or(o.connect_timeout)).count();
    std::string info = (servers.empty() ? postgres_servers_conninfo(o) : servers) + " dbname=" +
                       postgres_quoted(o.database) + " user=" + postgres_quoted(o.user) +
                       " connect_timeout=" + std::to_string(seconds < 1 ? 1 : seconds) +
                       " application_name='shedlock-cpp'" + tcp_liveness(o);
    // PgBouncer refuses `options` (postgres_options::pooler). Without ours, an empty value: libpq
    // would otherwise send PGOPTIONS from the environment, which the pooler refuses the same way.
    info += " options=" +
            (with_options ? postgres_quoted("-c DateStyle=ISO -c statement_timeout=" + std::to_string(o.statement_timeout.count()))
                          : std::string("''"));
    if (o.password) info += " password=" + postgres_quoted(*o.password);
    const std::pair<const char*, const std::string*> tls[] = {
        {"sslmode", &o.tls.mode}, {"sslrootcert", &o.tls.ca_file}, {"sslcert", &o.tls.cert_file}, {"sslkey", &o.tls.key_file}};
    for (const auto& [key, value] : tls)
        if (!value->empty()) info += std::string(" ") + key + "=" + postgres_quoted(*value);
    return info;
}

void throw_postgres_error(const std::exception& e, const std::string& shown, bool sent) {
    if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e))
        throw postgres_error(postgres_failure::refused, e.what(), sql->sqlstate(), shown, sent);
    if (dynamic_cast<const pqxx::broken_connection*>(&e))
        throw postgres_error(postgres_failure::connection, e.what(), "", shown, sent);
    if (dynamic_cast<const pqxx::in_doubt_error*>(&e) || dynamic_cast<const pqxx::failure*>(&e))
        throw postgres_error(postgres_failure::lost, e.what(), "", shown, sent);
    throw postgres_error(postgres_failure::other, e.what(), "", shown, sent);
}

postgres_connection::postgres_connection(const postgres_options& options)
    : shown_(options.redacted_uri()), user_(options.user), servers_(std::max<std::size_t>(options.servers.size(), 1)),
      target_(options.target), answer_within_(options.statement_timeout + options.connect_timeout) {
    // One deadline for the whole connect: each server, the retry without `options` and the
    // probe get what the attempts before them left of connect_timeout, not a fresh one each.
    const connect_budget budget(options);
    bool options_sent = false;
    if (options.servers.empty()) {
        try {
            options_sent = connect_to(options, {}, budget, 1);
        } catch (const storage_error&) {
            throw;  // already classified (a pooler refusing options under pooler=none)
        } catch (const std::exception& e) {
            throw_postgres_error(e, shown_, false);
        }
    } else {
        options_sent = connect_in_turn(options, budget);
    }
    watch_ = std::make_unique<synchronous_wait_watch>(*connection_);
    if (options.pooler == postgres_options::pooler_kind::none) return;
    // A connection made is kept: when libpq's per-server floor (2 s) spent the budget on silent
    // servers before it, the probe still gets that floor rather than throwing the connection away.
    sql::sql_result probe;
    try {
        try {
            probe = run_before_deadline(pooler_probe_sql, {}, std::max(budget.left(), libpq_timeout_floor));
        } catch (const storage_error&) {
            throw;
        } catch (const std::exception& e) {
            throw_postgres_error(e, shown_, true);
        }
    } catch (const storage_error& e) {
        throw probe_failure(e, shown_);
    }
    pooled_ = pooled_after_probe(options, options_sent, connection_->backendpid(), probe, shown_);
    guess_.set_pooled(pooled_);
}

bool postgres_connection::connect_to(const postgres_options& options, const std::string& servers,
                                     const connect_budget& budget, std::size_t servers_left) {
    bool options_sent = sends_startup_options(options);
    try {
        connection_ = std::make_unique<handle_keeping_connection>(
            postgres_conninfo(options, options_sent, budget.per_server(servers_left), servers));
    } catch (const pqxx::broken_connection& e) {
        if (!options_sent || !retries_without_startup_options(options, e.what())) throw;
        options_sent = false;
        // The server just answered (a pooler refusing `options`), so the retry gets at least
        // libpq's per-server floor even when silent servers before it spent the budget: the
        // same rule as the probe's below.
        connection_ = std::make_unique<handle_keeping_connection>(postgres_conninfo(options, false, budget.per_server(servers_left), servers));
    }
    return options_sent;
}

bool postgres_connection::connect_in_turn(const postgres_options& options, const connect_budget& budget) {
    // The servers one by one, not as libpq's host list: libpq ends its own walk at a server that
    // accepts and then closes or answers garbage (a proxy with no backend), never trying the rest.
    std::string failures;
    for (std::size_t i = 0; i < options.servers.size(); ++i) {
        auto one = options;
        one.servers = {options.servers[i]};
        try {
            return connect_to(options, postgres_servers_conninfo(one), budget, options.servers.size() - i);
        } catch (const pqxx::broken_connection& e) {
            std::string why = e.what();  // libpq's "connection to server at ..., port ... failed: ..."
            while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
            failures += (failures.empty() ? "" : "\n") + why;
        } catch (const storage_error&) {
            throw;
        } catch (const std::exception& e) {
            throw_postgres_error(e, shown_, false);
        }
    }
    throw postgres_error(postgres_failure::connection, failures, "", shown_, false);
}

bool synchronous_wait_watch::operator()(const char message[]) noexcept {
    if (cancels_synchronous_wait(message)) canceled = true;
    return true;  // the notice goes on to libpqxx's own handling, as before
}

sql::sql_result postgres_connection::run_before_deadline(const std::string& sql, const std::vector<std::string>& values,
                                                         std::optional<std::chrono::milliseconds> within) {
    const auto answer_within = within.value_or(answer_within_);
    const socket_deadline deadline(connection_->sock(), answer_within);
    try {
        if (watch_) watch_->canceled = false;
        sql::sql_result result;
        if (values.empty()) {
            // Parameterless statements (DDL, probes, listing) run as simple queries: they run rarely.
            pqxx::nontransaction autocommit(*connection_);
            result = rows_of(autocommit.exec(sql));
        } else {
            result = run_prepared_blocking(connection_->handle(), sql, values, guess_);
        }
        if (watch_ && watch_->canceled) throw unconfirmed_commit(shown_);
        return result;
    } catch (const storage_error&) {
        throw;
    } catch (const std::exception&) {
        if (!deadline.expired()) throw;
        throw postgres_no_answer(shown_, answer_within);
    }
}

void postgres_connection::check_still_open() {
    pollfd idle{connection_->sock(), POLLIN, 0};
    if (idle.fd < 0) return;  // libpqxx reports the closed connection itself, before sending
    try {
        // Nothing arrived while idle: the usual case. Else read it: a notice (the FATAL of a
        // terminated session is one too) is dropped; the end of the stream after it throws.
        for (int round = 0; round < 4 && ::poll(&idle, 1, 0) > 0; ++round) connection_->get_notifs();
    } catch (const std::exception& e) {
        std::string message = e.what();
        while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
        throw storage_error(storage_category::unavailable, retry_advice::safe,
                            "PostgreSQL " + shown_ + ": the connection was closed while it idled (" + message +
                                "); the statement was not sent");
    }
}

sql::sql_result postgres_connection::execute(const std::string& sql, const std::vector<sql::sql_param>& params) {
    check_still_open();
    try {
        std::vector<std::string> values;
        values.reserve(params.size());
        for (const auto& p : params)
            values.push_back(std::holds_alternative<std::int64_t>(p) ? std::to_string(std::get<std::int64_t>(p))
                                                                     : std::get<std::string>(p));
        return run_before_deadline(sql, values);
    } catch (const storage_error&) {
        throw;  // the deadline's own, already worded
    } catch (const pqxx::sql_error& e) {
        if (refused_as_read_only(e.sqlstate()) && !in_recovery()) throw read_only_primary(e.what(), shown_, user_);
        throw_postgres_error(e, shown_, true);
    } catch (const std::exception& e) {
        throw_postgres_error(e, shown_, true);
    }
}

bool postgres_connection::in_recovery() {
    try {
        // Asked only after a 25006, never on a statement that succeeded.
        const auto r = run_before_deadline("SELECT pg_is_in_recovery()", {});
        return r.rows.empty() || r.rows[0].empty() || r.rows[0][0].value_or("t") != "f";
    } catch (const std::exception&) {
        return true;  // unknown: keep the standby's reading (unavailable, safe to retry)
    }
}

}  // namespace shedlock::providers::detail
