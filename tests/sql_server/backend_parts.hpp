#pragma once
// The parts of a backend's context (sql_server_suite.hpp) that every SQL server makes alike from
// its own option types, so that each backend's file says only what is its own.
#include "sql_server_suite.hpp"

#include <shedlock/provider_uri.hpp>

namespace shedlock::test::sql_server {

/// Fills server_options, make_provider, read_run_uri, read_lock_uri, open_run_store,
/// open_claims and make_claims of `c` (whose `uri` is set) from `Options` (the lock provider's: a
/// sql_lock_options and a server_options) and `RunOptions` (the stores': a sql_run_options
/// with a `server` of type Options). The make_* functions open the backend's parts; every
/// option not set by a case keeps what the test server's URI says.
template <class Options, class RunOptions, class MakeLocks, class MakeRuns, class MakeClaims>
void fill_parts(context& c, MakeLocks make_locks, MakeRuns make_runs, MakeClaims make_claims) {
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
    c.make_provider = [lock_options_of, make_locks](const lock_options& o, const shedlock::clock& clock) {
        return make_locks(lock_options_of(o), clock);
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
    c.open_run_store = [run_options_of, make_runs](const run_uri_parts& p) -> std::unique_ptr<run_store> {
        return make_runs(run_options_of(p.run, &p.server));
    };
    c.open_claims = [run_options_of, make_claims](const run_uri_parts& p) -> std::unique_ptr<idempotency_store> {
        return make_claims(run_options_of(p.run, &p.server), system_clock::instance());
    };
    c.make_claims = [run_options_of, make_claims](const sql::sql_run_options& o,
                                                  const shedlock::clock& clock) -> std::unique_ptr<idempotency_store> {
        return make_claims(run_options_of(o, nullptr), clock);
    };
}

}  // namespace shedlock::test::sql_server
