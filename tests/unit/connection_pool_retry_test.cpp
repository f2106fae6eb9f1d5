// Retry advice on storage_error and how the connection pool follows it: a call that failed
// before reaching the server (safe) runs once more on a new connection; one in doubt (sent, its
// answer lost) runs again only when it may run twice, and a permanent one never.
#include <shedlock/detail/connection_pool.hpp>
#include <shedlock/error.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using shedlock::retry_advice;
using shedlock::storage_category;
using shedlock::storage_error;

namespace {

struct fake_connection {
    int id = 0;
};

/// A pool of one over fake connections numbered 1, 2, ... in the order they are opened.
struct numbered_pool {
    int opened = 0;
    shedlock::detail::connection_pool<fake_connection> pool{
        [this] { return std::make_unique<fake_connection>(fake_connection{++opened}); }, {}};
};

}  // namespace

TEST_CASE("storage_error: each category's default retry advice") {
    CHECK(shedlock::default_retry_advice(storage_category::busy) == retry_advice::safe);
    CHECK(shedlock::default_retry_advice(storage_category::conflict) == retry_advice::safe);
    CHECK(shedlock::default_retry_advice(storage_category::unavailable) == retry_advice::in_doubt);
    CHECK(shedlock::default_retry_advice(storage_category::missing_schema) == retry_advice::permanent);
    CHECK(shedlock::default_retry_advice(storage_category::access_denied) == retry_advice::permanent);
    CHECK(shedlock::default_retry_advice(storage_category::invalid_data) == retry_advice::permanent);
    CHECK(shedlock::default_retry_advice(storage_category::other) == retry_advice::permanent);
    CHECK(storage_error(storage_category::busy, "x").advice() == retry_advice::safe);
    CHECK(storage_error(storage_category::unavailable, retry_advice::safe, "x").advice() == retry_advice::safe);
    CHECK(std::string(shedlock::to_string(retry_advice::in_doubt)) == "in doubt");
    CHECK(std::string(shedlock::to_string(retry_advice::safe)) == "safe to retry");
    CHECK(std::string(shedlock::to_string(retry_advice::permanent)) == "permanent");
}

TEST_CASE("connection pool: a call that never reached the server runs once more on a new connection") {
    numbered_pool p;
    p.pool.run([](fake_connection&) { return 0; });  // connection 1 now idles in the pool
    int calls = 0;
    const int used = p.pool.run_retrying_safe([&](fake_connection& c) {
        if (++calls == 1) throw storage_error(storage_category::unavailable, retry_advice::safe, "closed while idle");
        return c.id;
    });
    CHECK(calls == 2);
    CHECK(used == 2);  // the broken connection was dropped, the retry opened a new one
}

TEST_CASE("connection pool: a call in doubt is reported, never run again") {
    numbered_pool p;
    p.pool.run([](fake_connection&) { return 0; });
    int calls = 0;
    const auto in_doubt = [&](fake_connection&) -> int {
        ++calls;
        throw storage_error(storage_category::unavailable, retry_advice::in_doubt,
                            std::string("lost; ") + shedlock::may_have_been_applied);
    };
    try {
        p.pool.run_retrying_safe(in_doubt);
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.advice() == retry_advice::in_doubt);
        CHECK_THAT(e.what(), Catch::Contains("may have been applied"));
    }
    CHECK(calls == 1);
    CHECK(p.pool.run([](fake_connection& c) { return c.id; }) == 2);  // the broken one was still dropped
}

TEST_CASE("connection pool: a call that may run twice is run again in doubt when its connection had idled") {
    numbered_pool p;
    p.pool.run([](fake_connection&) { return 0; });  // connection 1 idles
    int calls = 0;
    const int used = p.pool.run_retrying_in_doubt([&](fake_connection& c) {
        if (++calls == 1) throw storage_error(storage_category::unavailable, retry_advice::in_doubt, "lost");
        return c.id;
    });
    CHECK(calls == 2);
    CHECK(used == 2);
    // On a connection opened for it, an in-doubt failure is the server's now: reported.
    calls = 0;
    numbered_pool fresh;
    CHECK_THROWS_AS(fresh.pool.run_retrying_in_doubt([&](fake_connection&) -> int {
        ++calls;
        throw storage_error(storage_category::unavailable, retry_advice::in_doubt, "lost");
    }),
                    storage_error);
    CHECK(calls == 1);
}

TEST_CASE("connection pool: safe failures that break nothing and permanent ones are not run again") {
    numbered_pool p;
    int calls = 0;
    CHECK_THROWS_AS(p.pool.run_retrying_safe([&](fake_connection&) -> int {
        ++calls;
        throw storage_error(storage_category::busy, "stayed locked");  // safe, but the connection is fine
    }),
                    storage_error);
    CHECK(calls == 1);
    CHECK_THROWS_AS(p.pool.run_retrying_in_doubt([&](fake_connection&) -> int {
        ++calls;
        throw storage_error(storage_category::missing_schema, "no table");
    }),
                    storage_error);
    CHECK(calls == 2);
    CHECK(p.opened == 1);
}
