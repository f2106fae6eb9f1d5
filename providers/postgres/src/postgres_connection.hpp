#pragma once
// An sql_connection over one libpqxx connection (private: libpqxx stays out of public headers).

#include "postgres_conninfo.hpp"
#include "postgres_prepared.hpp"

#include <shedlock/providers/postgres_lock_provider.hpp>

#include <pqxx/connection>
#include <pqxx/errorhandler>
#include <pqxx/result>

#include <libpq-fe.h>

#include <memory>
#include <string>

namespace shedlock::providers::detail {

class connect_budget;

/// Maps a libpqxx/libpq failure to a storage_error whose message names the server as `shown`
/// (a URI without password). libpq's own text is kept whole: it never contains the password
/// (the conninfo quotes it), and searching-and-replacing it would reveal where it occurs.
/// `sent`: the failure came after a statement went to the server, so a lost connection leaves it
/// in doubt; before that (connecting) it is safe to retry (storage_error::advice).
[[noreturn]] void throw_postgres_error(const std::exception& e, const std::string& shown, bool sent);

/// Marks when a server notice says a commit stopped waiting for the synchronous standby
/// (cancels_synchronous_wait): the statement then fails in doubt instead of succeeding.
class synchronous_wait_watch final : public pqxx::errorhandler {
public:
    explicit synchronous_wait_watch(pqxx::connection_base& connection) : pqxx::errorhandler(connection) {}
    bool operator()(const char message[]) noexcept override;
    bool canceled = false;
};

/// libpqxx 6 keeps libpq's handle private; a connection policy (its extension point for how to
/// connect) is handed every handle it makes and drops, and this one keeps it: the lock statements
/// go to libpq directly (postgres_prepared.hpp), since libpqxx's prepared statements cannot be
/// told that a pooler's server connection has one already, or has lost it.
class handle_keeping_policy final : public pqxx::connect_direct {
public:
    using pqxx::connect_direct::connect_direct;
    handle do_startconnect(handle orig) override { return kept_ = pqxx::connect_direct::do_startconnect(orig); }
    handle do_completeconnect(handle orig) override { return kept_ = pqxx::connect_direct::do_completeconnect(orig); }
    handle do_dropconnect(handle orig) noexcept override { return kept_ = pqxx::connect_direct::do_dropconnect(orig); }
    handle do_disconnect(handle orig) noexcept override { return kept_ = pqxx::connect_direct::do_disconnect(orig); }
    handle kept() const noexcept { return kept_; }

private:
    handle kept_ = nullptr;
};

/// pqxx::connection with its libpq handle in reach (as libpqxx's basic_connection_base is built).
class handle_keeping_connection final : public pqxx::connection_base {
public:
    explicit handle_keeping_connection(const std::string& conninfo) : pqxx::connection_base(policy_), policy_(conninfo) {
        init();
    }
    ~handle_keeping_connection() noexcept { close(); }
    handle_keeping_connection(const handle_keeping_connection&) = delete;
    handle_keeping_connection& operator=(const handle_keeping_connection&) = delete;
    PGconn* handle() const noexcept { return policy_.kept(); }

private:
    handle_keeping_policy policy_;
};

class postgres_connection final : public sql::sql_connection {
public:
    /// Connects (without libpq `options` when a pooler refuses them, pooler=auto) and, unless
    /// pooler=none, probes whether a pooler stands between (postgres_pooler.hpp).
    explicit postgres_connection(const postgres_options& options);
    sql::sql_result execute(const std::string& sql, const std::vector<sql::sql_param>& params) override;
    /// The pooler the probe found (or none), the server's role, its streaming replicas and
    /// whether they are synchronous, and statement_timeout behind a pooler (postgres_topology.cpp).
    std::vector<topology_note> topology() override;

private:
    /// Connects to `servers` (libpq's host/port keys; empty: every server of `options`) within
    /// its share of `budget` (`servers_left` still to try), once more without libpq `options`
    /// when a pooler refuses them; returns whether they were sent. libpqxx's exceptions pass through.
    bool connect_to(const postgres_options& options, const std::string& servers, const connect_budget& budget,
                    std::size_t servers_left);
    /// A multi-host list: each server in turn, with an equal share of what is left of `budget`
    /// (at least libpq's 2 s floor each). Returns whether libpq `options` were sent.
    bool connect_in_turn(const postgres_options& options, const connect_budget& budget);
    /// Doctor's note on a multi-host URI: how many servers, the target, which one this reached.
    topology_note servers_note();
    /// Throws a safe-to-retry storage_error when the server closed the connection while it idled
    /// (restart, terminated session, idle timeout): checked before a statement is sent, so that
    /// a failure then is known not to have reached the server.
    void check_still_open();
    /// Runs `sql` (a prepared statement named after its text when it has parameters,
    /// postgres_prepared.hpp); a server that has not answered within
    /// answer_within_ gets the connection shut down: storage_error(unavailable).
    /// `within`: a shorter deadline (the connect's remaining budget, for the probe).
    sql::sql_result run_before_deadline(const std::string& sql, const std::vector<std::string>& values,
                                     std::optional<std::chrono::milliseconds> within = std::nullopt);

    /// Whether the server is in recovery (a standby), asked after a 25006: a primary's read-only
    /// session is a configuration error (read_only_primary), a standby's a failover to wait out.
    bool in_recovery();

    std::string shown_;
    std::string user_;  // for the ALTER ROLE of read_only_primary
    std::size_t servers_ = 1;  // in the URI (a multi-host list: postgres_options::servers)
    postgres_options::session_target target_ = postgres_options::session_target::any;
    std::chrono::milliseconds answer_within_;  // the server's statement_timeout plus a round trip's worth
    std::unique_ptr<handle_keeping_connection> connection_;
    std::unique_ptr<synchronous_wait_watch> watch_;  // after connection_: unregisters from it first
    statement_guess guess_;  // where this connection's statements live (postgres_prepared.hpp)
    bool pooled_ = false;    // the probe found a pooler
};

}  // namespace shedlock::providers::detail
