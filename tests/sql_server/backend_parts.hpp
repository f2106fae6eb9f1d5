#pragma once
// What every SQL server's context (sql_server_suite.hpp) makes alike from its own option types
// and functions, so that each backend's file says only what is its own: a table of its strings,
// expectations and checks, its part-making functions and how it ends a session.
#include "sql_server_suite.hpp"
#include "tcp_client_ports.hpp"

#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sql/sql_idempotency_store.hpp>

#include <unistd.h>

#include <vector>

namespace shedlock::test::sql_server {

/// A backend's own functions: how it opens its parts from its lock options `Options` (a
/// sql_lock_options and a server_options) and its stores' options `RunOptions` (a
/// sql_run_options with a `server` of type Options), and how it ends sessions.
template <class Options, class RunOptions>
struct backend_functions {
    std::unique_ptr<sql::sql_lock_provider> (*lock_provider)(const Options&, const shedlock::clock&);
    std::unique_ptr<sql::sql_run_store> (*run_store)(const RunOptions&);
    std::unique_ptr<sql::sql_idempotency_store> (*claims)(const RunOptions&, const shedlock::clock&);
    /// Ends the server's sessions whose client ports (of this process) are `ports`, from a
    /// session of its own, as an operator's kill or a restart would.
    void (*kill_sessions)(const std::vector<int>& ports);
};

/// Ends this process's sessions to the server at `server_port` with `kill_sessions` (there must
/// be some) and waits until they are really closed.
inline void end_own_sessions(int server_port, void (*kill_sessions)(const std::vector<int>&)) {
    const auto ports = tcp_client_ports(::getpid(), server_port);
    REQUIRE_FALSE(ports.empty());
    kill_sessions(ports);
    REQUIRE(wait_until_closed(::getpid(), server_port, ports));
}

/// `table` (a backend's own words, `uri` set) completed with server_options, make_provider,
/// read_run_uri, read_lock_uri, open_run_store, open_claims, make_claims and
/// kill_own_connections, all made with `f`; every option not set by a case keeps what the test
/// server's URI says.
template <class Options, class RunOptions>
context with_parts(context table, backend_functions<Options, RunOptions> f) {
    context c = std::move(table);
    const auto uri = c.uri;
    const auto lock_options_of = [uri](const lock_options& parts) {
        auto o = Options::from_uri(parse_provider_uri(uri()));
        static_cast<sql::sql_lock_options&>(o) = parts;
        static_cast<sql::server_options&>(o) = parts;
        return o;
    };
    // `run` on the test server, or on the server `on` names.
    const auto run_options_of = [uri](const sql::sql_run_options& run, const sql::server_options* on) {
        auto o = RunOptions::from_uri(parse_provider_uri(uri()));
        static_cast<sql::sql_run_options&>(o) = run;
        if (on) static_cast<sql::server_options&>(o.server) = *on;
        return o;
    };
    c.make_provider = [lock_options_of, f](const lock_options& o, const shedlock::clock& clock) {
        return f.lock_provider(lock_options_of(o), clock);
    };
    c.read_lock_uri = [](const std::string& text) {
        const auto o = Options::from_uri(parse_provider_uri(text));
        lock_options out;
        static_cast<sql::sql_lock_options&>(out) = o;
        static_cast<sql::server_options&>(out) = o;
        return out;
    };
    c.server_options = [read = c.read_lock_uri, uri] { return read(uri()); };
    c.read_run_uri = [](const std::string& text) {
        const auto o = RunOptions::from_uri(parse_provider_uri(text));
        return run_uri_parts{o, o.server};
    };
    c.open_run_store = [run_options_of, f](const run_uri_parts& p) -> std::unique_ptr<run_store> {
        return f.run_store(run_options_of(p.run, &p.server));
    };
    c.open_claims = [run_options_of, f](const run_uri_parts& p) -> std::unique_ptr<idempotency_store> {
        return f.claims(run_options_of(p.run, &p.server), system_clock::instance());
    };
    c.make_claims = [run_options_of, f](const sql::sql_run_options& o,
                                        const shedlock::clock& clock) -> std::unique_ptr<idempotency_store> {
        return f.claims(run_options_of(o, nullptr), clock);
    };
    c.kill_own_connections = [uri, f] {
        end_own_sessions(Options::from_uri(parse_provider_uri(uri())).port, f.kill_sessions);
    };
    return c;
}

}  // namespace shedlock::test::sql_server
