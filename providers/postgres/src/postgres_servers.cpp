#include "postgres_servers.hpp"
#include "postgres_error.hpp"

#include <shedlock/error.hpp>

#include <algorithm>

namespace shedlock::providers::detail {
namespace {

using session_target = postgres_options::session_target;

[[noreturn]] void bad_list(const provider_uri& uri, const std::string& why) {
    throw configuration_error("provider URI \"" + uri.redacted() + "\": " + why +
                              "; write the servers as host1:port1,host2:port2 (at most " +
                              std::to_string(max_postgres_servers) + "), e.g. postgresql://db1:5432,db2:5432/app");
}

std::uint16_t port_of(const provider_uri& uri, const std::string& text) {
    if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(text) == 0 || std::stoi(text) > 65535)
        bad_list(uri, "the port \"" + text + "\" is not a number from 1 to 65535");
    return static_cast<std::uint16_t>(std::stoi(text));
}

/// One entry: `host`, `host:port`, `[v6]` or `[v6]:port`.
postgres_options::server_address server_of(const provider_uri& uri, const std::string& entry, std::uint16_t default_port) {
    std::string host = entry, port;
    if (!entry.empty() && entry.front() == '[') {
        const auto close = entry.find(']');
        if (close == std::string::npos || (close + 1 < entry.size() && entry[close + 1] != ':'))
            bad_list(uri, "the server \"" + entry + "\" has an unclosed '[' or text after ']'");
        host = entry.substr(1, close - 1);
        if (close + 1 < entry.size()) port = entry.substr(close + 2);
        if (close + 1 < entry.size() && port.empty()) bad_list(uri, "the server \"" + entry + "\" has an empty port");
    } else if (entry.find(':') != entry.rfind(':')) {
        // ::1:5432 could be ::1 port 5432 or ::1:5432 on the default port; ::1 would be host ":".
        bad_list(uri, "the server \"" + entry + "\" looks like an IPv6 address without brackets: write [" + entry + "] or [address]:port");
    } else if (const auto colon = entry.rfind(':'); colon != std::string::npos) {
        host = entry.substr(0, colon);
        port = entry.substr(colon + 1);
        if (port.empty()) bad_list(uri, "the server \"" + entry + "\" has an empty port");
    }
    if (host.empty()) bad_list(uri, "a server of the list \"" + uri.host + "\" has no host");
    return {host, port.empty() ? default_port : port_of(uri, port)};
}

}  // namespace

void read_server_list(const provider_uri& uri, std::uint16_t default_port, postgres_options& out) {
    if (uri.host.find(',') == std::string::npos) return;
    std::string rest = uri.host;
    for (std::size_t start = 0;;) {
        const auto comma = rest.find(',', start);
        const auto entry = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (out.servers.size() == max_postgres_servers) bad_list(uri, "more than " + std::to_string(max_postgres_servers) + " servers");
        auto server = server_of(uri, entry, default_port);
        const bool repeated = std::any_of(out.servers.begin(), out.servers.end(), [&](const auto& s) {
            return s.host == server.host && s.port == server.port;
        });
        if (repeated) bad_list(uri, "the server " + server.host + ":" + std::to_string(server.port) + " is given twice");
        out.servers.push_back(std::move(server));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    out.host = out.servers.front().host;
    out.port = out.servers.front().port;
}

session_target read_session_target(const provider_uri& uri, uri_options& query, bool several_servers) {
    const auto value = query.text("target_session_attrs");
    if (!value) return several_servers ? session_target::read_write : session_target::any;
    if (*value == "read-write") return session_target::read_write;
    if (*value == "primary") return session_target::primary;
    if (*value == "any") return session_target::any;
    const bool libpq_knows = *value == "read-only" || *value == "standby" || *value == "prefer-standby";
    throw configuration_error("provider URI \"" + uri.redacted() + "\": target_session_attrs=\"" + *value + "\" " +
                              (libpq_knows ? "would connect to a standby, where no lock can be taken (a lock writes)"
                                           : "is not a libpq session target") +
                              "; use target_session_attrs=read-write (the default with several servers) or primary");
}

connect_budget::connect_budget(const postgres_options& options)
    : total_(options.connect_timeout > std::chrono::milliseconds::zero() ? options.connect_timeout
                                                                         : std::chrono::seconds(1)),
      until_(std::chrono::steady_clock::now() + total_) {}

std::chrono::milliseconds connect_budget::left() const {
    const auto rest = std::chrono::ceil<std::chrono::milliseconds>(until_ - std::chrono::steady_clock::now());
    return std::max(rest, std::chrono::milliseconds::zero());
}

std::chrono::milliseconds connect_budget::per_server(std::size_t servers) const {
    return left() / static_cast<long>(std::max<std::size_t>(servers, 1));
}

storage_error connect_budget::spent(const std::string& shown) const {
    return storage_error(storage_category::unavailable, retry_advice::safe,
                         "PostgreSQL " + shown + ": no connection within " + postgres_seconds_text(total_) +
                             " (connect_timeout); is the server running and reachable?");
}

void connect_budget::check(const std::string& shown) const {
    if (left() == std::chrono::milliseconds::zero()) throw spent(shown);
}

const char* libpq_target_name(session_target target) {
    switch (target) {
    case session_target::read_write: return "read-write";
    case session_target::primary: return "primary";
    case session_target::any: break;
    }
    return "any";
}

}  // namespace shedlock::providers::detail

namespace shedlock::providers {

std::string postgres_options::redacted_uri() const {
    if (servers.empty()) return server_options::redacted_uri("postgresql");
    provider_uri uri;
    uri.scheme = "postgresql";
    uri.user = user;
    if (password) uri.password = "";
    for (const auto& s : servers) {
        const bool v6 = s.host.find(':') != std::string::npos;
        uri.host += (uri.host.empty() ? "" : ",") + (v6 ? "[" + s.host + "]" : s.host) + ":" + std::to_string(s.port);
    }
    uri.path = database;
    return uri.redacted();
}

}  // namespace shedlock::providers
