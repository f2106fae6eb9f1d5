#include "postgres_connection.hpp"
#include "socket_deadline.hpp"

#include <shedlock/error.hpp>

#include <pqxx/except>
#include <pqxx/nontransaction>
#include <pqxx/prepared_statement>
#include <pqxx/result>

#include <poll.h>

namespace shedlock::providers::detail {
namespace {

/// A conninfo value in single quotes, with ' and \ escaped (libpq's own quoting rules).
std::string quoted(const std::string& value) {
    std::string out = "'";
    for (char c : value) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
    }
    return out + "'";
}

storage_category category_of_state(const std::string& state) {
    if (state == "42P01" || state == "42703" || state == "3F000") return storage_category::missing_schema;
    if (state.rfind("28", 0) == 0 || state == "42501") return storage_category::access_denied;
    if (state.rfind("08", 0) == 0 || state.rfind("57P", 0) == 0) return storage_category::unavailable;
    if (state == "40001" || state == "40P01") return storage_category::conflict;  // serialization, deadlock
    if (state == "57014" || state.rfind("40", 0) == 0 || state.rfind("55P", 0) == 0) return storage_category::busy;
    return storage_category::other;
}

/// A statement the server failed: refused or rolled back (busy, conflict) is safe to run again;
/// a session that ended during it (08*, 57P*) may have committed it before the answer was lost.
retry_advice advice_of_state(storage_category category, bool sent) {
    if (category == storage_category::unavailable) return sent ? retry_advice::in_doubt : retry_advice::safe;
    return default_retry_advice(category);
}

std::string doubt_clause(retry_advice advice) {
    return advice == retry_advice::in_doubt ? std::string("; ") + may_have_been_applied : std::string();
}

/// A certificate was refused, or TLS was required and not offered: no retry will help.
bool is_tls_failure(const std::string& message) {
    return message.find("certificate") != std::string::npos || message.find("does not support SSL") != std::string::npos ||
           message.find("SSL error: tlsv1 alert") != std::string::npos;
}

storage_category category_of_connect_failure(const std::string& message) {
    if (is_tls_failure(message)) return storage_category::access_denied;
    if (message.find("authentication failed") != std::string::npos ||
        message.find("no password supplied") != std::string::npos ||
        message.find("no pg_hba.conf entry") != std::string::npos)
        return storage_category::access_denied;
    if (message.find("does not exist") != std::string::npos) return storage_category::other;
    return storage_category::unavailable;
}

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

std::string seconds_text(std::chrono::milliseconds d) {
    auto text = std::to_string(d.count() / 1000);
    if (const auto ms = d.count() % 1000) text += "." + std::to_string(1000 + ms).substr(1);
    return text + " s";
}

}  // namespace

std::string postgres_conninfo(const postgres_options& o) {
    const auto seconds = std::chrono::ceil<std::chrono::seconds>(o.connect_timeout).count();
    std::string info = "host=" + quoted(o.host) + " port=" + std::to_string(o.port) + " dbname=" + quoted(o.database) +
                       " user=" + quoted(o.user) + " connect_timeout=" + std::to_string(seconds < 1 ? 1 : seconds) +
                       " application_name='shedlock-cpp'" + tcp_liveness(o) + " options=" +
                       quoted("-c DateStyle=ISO -c statement_timeout=" + std::to_string(o.statement_timeout.count()));
    if (o.password) info += " password=" + quoted(*o.password);
    const std::pair<const char*, const std::string*> tls[] = {
        {"sslmode", &o.tls.mode}, {"sslrootcert", &o.tls.ca_file}, {"sslcert", &o.tls.cert_file}, {"sslkey", &o.tls.key_file}};
    for (const auto& [key, value] : tls)
        if (!value->empty()) info += std::string(" ") + key + "=" + quoted(*value);
    return info;
}

void throw_postgres_error(const std::exception& e, const std::string& shown, bool sent) {
    std::string message = e.what();
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    const std::string prefix = "PostgreSQL " + shown + ": ";
    if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
        const auto category = category_of_state(sql->sqlstate());
        const auto advice = advice_of_state(category, sent);
        throw storage_error(category, advice,
                            prefix + message + (sql->sqlstate().empty() ? "" : " [SQLSTATE " + sql->sqlstate() + "]") +
                                doubt_clause(advice));
    }
    if (dynamic_cast<const pqxx::broken_connection*>(&e)) {
        const auto category = category_of_connect_failure(message);
        std::string hint;
        if (category == storage_category::access_denied)
            hint = is_tls_failure(message) ? "; check sslmode, sslrootcert (the CA that signed the server's certificate), "
                                             "sslcert and sslkey"
                                           : "; check the user and password";
        if (category == storage_category::unavailable) hint = "; is the server running and reachable?";
        const auto advice = category != storage_category::unavailable ? retry_advice::permanent
                            : sent                                     ? retry_advice::in_doubt
                                                                       : retry_advice::safe;
        throw storage_error(category, advice, prefix + message + hint + doubt_clause(advice));
    }
    if (dynamic_cast<const pqxx::in_doubt_error*>(&e) || dynamic_cast<const pqxx::failure*>(&e)) {
        const auto advice = sent ? retry_advice::in_doubt : retry_advice::safe;
        throw storage_error(storage_category::unavailable, advice, prefix + message + doubt_clause(advice));
    }
    throw storage_error(storage_category::other, retry_advice::permanent, prefix + message);
}

postgres_connection::postgres_connection(const postgres_options& options)
    : shown_(options.redacted_uri()), answer_within_(options.statement_timeout + options.connect_timeout) {
    try {
        connection_ = std::make_unique<pqxx::connection>(postgres_conninfo(options));
    } catch (const std::exception& e) {
        throw_postgres_error(e, shown_, false);
    }
}

const std::string& postgres_connection::prepared_name(const std::string& sql) {
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
        const std::string name = "shedlock_" + std::to_string(prepared_.size());
        connection_->prepare(name, sql);  // registered here, sent to the server on first use
        it = prepared_.emplace(sql, name).first;
    }
    return it->second;
}

pqxx::result postgres_connection::run_before_deadline(const std::string& sql, const std::vector<std::string>& values) {
    const socket_deadline deadline(connection_->sock(), answer_within_);
    try {
        pqxx::nontransaction autocommit(*connection_);
        // Parameterless statements (DDL, probes, listing) run unprepared: they run rarely.
        return values.empty() ? autocommit.exec(sql)
                              : autocommit.exec_prepared(prepared_name(sql), pqxx::prepare::make_dynamic_params(values));
    } catch (const std::exception&) {
        if (!deadline.expired()) throw;
        throw storage_error(storage_category::unavailable, retry_advice::in_doubt,
                            "PostgreSQL " + shown_ + ": no answer within " + seconds_text(answer_within_) +
                                " (statement_timeout + connect_timeout); the connection was closed. Is the server "
                                "stopped or overloaded, or the network silent? " + may_have_been_applied);
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
        const pqxx::result r = run_before_deadline(sql, values);
        sql::sql_result result;
        result.affected_rows = r.affected_rows();
        result.rows.reserve(r.size());
        for (const auto& row : r) {
            auto& out = result.rows.emplace_back();
            for (const auto& field : row)
                out.push_back(field.is_null() ? std::nullopt : std::optional<std::string>(field.c_str()));
        }
        return result;
    } catch (const storage_error&) {
        throw;  // the deadline's own, already worded
    } catch (const std::exception& e) {
        throw_postgres_error(e, shown_, true);
    }
}

}  // namespace shedlock::providers::detail
