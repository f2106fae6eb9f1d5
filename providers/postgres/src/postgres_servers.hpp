#pragma once
// Multi-host URIs (`postgresql://h1:5432,h2:5433/db?target_session_attrs=read-write`), read as
// libpq reads its own: the host list, its bounds, and which server a connection keeps.

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <shedlock/error.hpp>

#include <chrono>
#include <string>

namespace shedlock::providers::detail {

/// At most this many servers in one URI: a longer list is a typo or a generated mistake, and
/// each server costs a connect attempt inside one connect_timeout.
constexpr std::size_t max_postgres_servers = 16;

/// libpq's least connect_timeout per server (a smaller one is raised to it).
constexpr std::chrono::milliseconds libpq_timeout_floor{2000};

/// Splits a URI's host list (`h1:5432,[::1]:5433,h3`; a server without a port gets
/// `default_port`) into `out.servers`, and `out.host`/`out.port` become the first entry. Throws
/// configuration_error naming the URI (redacted) and the entry for an empty host, a bad port,
/// a server given twice or more than max_postgres_servers.
void read_server_list(const provider_uri& uri, std::uint16_t default_port, postgres_options& out);

/// `target_session_attrs=`: read-write, primary and any are kept; libpq's read-only, standby
/// and prefer-standby are refused (a lock writes: it needs the primary). Without the key: read-write when
/// several servers are given, else any.
postgres_options::session_target read_session_target(const provider_uri& uri, uri_options& query,
                                                     bool several_servers);

/// The connect_timeout of one connect, shared by everything the connect does (each server's
/// attempt, the retry without libpq `options`, the probe) instead of a fresh one each.
class connect_budget {
public:
    /// connect_timeout=0 (libpq's "wait for ever") is 1 s, as libpq's floor makes it.
    explicit connect_budget(const postgres_options& options);
    std::chrono::milliseconds total() const { return total_; }
    /// What is left of it (zero when spent).
    std::chrono::milliseconds left() const;
    /// libpq's connect_timeout for an attempt over `servers` servers: libpq applies it to each
    /// server it tries, so each gets an equal share of what is left.
    std::chrono::milliseconds per_server(std::size_t servers) const;
    /// The error when it is spent: unavailable, safe to retry (nothing was sent).
    storage_error spent(const std::string& shown) const;
    /// Throws spent() when nothing is left.
    void check(const std::string& shown) const;

private:
    std::chrono::milliseconds total_;
    std::chrono::steady_clock::time_point until_;
};

/// libpq's name for `target` (its target_session_attrs value).
const char* libpq_target_name(postgres_options::session_target target);

}  // namespace shedlock::providers::detail
