// Retry advice on every SQL server backend, through a proxy that drops the server's answer to one
// statement: an append the server applied is in doubt, reported as such ("may have been
// applied") and never run again; a completion (owner-checked, so it may run twice) is run again
// and settled. The cases that end idle sessions stay with each backend (its own session class);
// check_fails_unsent() is what they check.
#include "reply_dropping_proxy.hpp"
#include "server_env.hpp"
#include "sql_server_suite.hpp"

#include <shedlock/error.hpp>

#include <unistd.h>

using namespace shedlock;
using namespace shedlock::test::sql_server;
using Catch::Matchers::Contains;

namespace {

/// `uri` with its port `from` replaced by `port`.
std::string through_port(std::string uri, int from, int port) {
    const std::string old = ":" + std::to_string(from) + "/";
    const auto at = uri.find(old);
    REQUIRE(at != std::string::npos);
    return uri.replace(at, old.size(), ":" + std::to_string(port) + "/");
}

}  // namespace

void shedlock::test::sql_server::check_fails_unsent(const std::function<void()>& statement) {
    try {
        statement();
        FAIL("a session the server ended answered");
    } catch (const storage_error& e) {
        INFO(e.what());
        CHECK(e.category() == storage_category::unavailable);
        CHECK(e.advice() == retry_advice::safe);
        CHECK_THAT(e.what(), Contains("was not sent"));
    }
}

SQL_SERVER_CASE("{name} retry advice: an append whose answer was lost is in doubt and reported, never stored twice",
                "[retry]") {
    const auto& b = backend();
    const std::string pid = std::to_string(::getpid());
    const std::string runs = "retry_doubt_runs_" + pid, claims = "retry_doubt_claims_" + pid;
    const int server_port = b.server_options().port;
    shedlock::test::reply_dropping_proxy proxy(static_cast<std::uint16_t>(server_port));
    // Without TLS: the proxy must see the statement (the values travel in the statement's packets).
    auto direct_options = b.read_run_uri(b.uri() + "?create_schema=true&runs_table=" + runs);
    auto proxied_options = b.read_run_uri(through_port(b.uri(), server_port, proxy.port()) + "?" +
                                          b.without_tls_query + "&runs_table=" + runs);
    auto direct = b.open_run_store(direct_options);
    auto proxied = b.open_run_store(proxied_options);

    const std::string marker = "lost-answer-" + pid;
    run_record record{"doubt-task", "doubt-lock", "test:1", {}, {}, {}, run_outcome::succeeded, 1, marker, {}, false};
    proxy.arm(marker);
    try {
        proxied->append(record);
        FAIL("the lost answer was not reported");
    } catch (const storage_error& e) {
        INFO(e.what());
        CHECK(proxy.fired());
        CHECK(e.advice() == retry_advice::in_doubt);
        CHECK_THAT(e.what(), Contains("may have been applied"));
    }
    const auto stored = direct->last_runs("doubt-task", 10);
    if (shedlock::test::is_test_pooler(b.uri())) {
        // Behind a pooler the first message binds the statement by name, which the server
        // connection PgBouncer chose may lack: then nothing ran (the lost answer was 26000) and
        // the append is rightly in doubt. Never twice either way.
        REQUIRE(stored.size() <= 1);
    } else {
        REQUIRE(stored.size() == 1);  // applied once, and not run again
    }
    if (!stored.empty()) CHECK(stored.front().message == marker);

    // A completion may run twice (owner-checked): in doubt, it is run again and settled.
    direct_options.run.table = claims;
    proxied_options.run.table = claims;
    auto direct_claims = b.open_claims(direct_options);
    auto proxied_claims = b.open_claims(proxied_options);
    const auto claimed = proxied_claims->claim("doubt-key", std::chrono::minutes(5));
    REQUIRE(claimed.claim);
    proxy.arm(claimed.claim->owner);  // the completion carries the owner token
    CHECK(proxied_claims->complete(*claimed.claim, "the result") == finish_status::finished);
    CHECK(proxy.fired());
    const auto done = direct_claims->find("doubt-key");
    REQUIRE(done);
    CHECK(done->state == "done");
    CHECK(done->result == "the result");
}

SQL_SERVER_CASE("{name} retry advice: an acquire after {kill} of the idle sessions runs again on a new one", "[retry]") {
    auto o = options_for("retry_acquire");
    o.create_schema_if_missing = true;
    auto provider = make_provider(o);
    auto first = provider->try_lock({"before-kill", std::chrono::minutes{5}});
    REQUIRE(first);
    backend().kill_own_connections();  // the pooled session idles, killed: the acquire is never sent
    auto second = provider->try_lock({"after-kill", std::chrono::minutes{5}});
    CHECK(second);
}
