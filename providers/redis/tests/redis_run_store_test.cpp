// The Redis run store on the real test server: the shared run-store checks, the keys as Redis
// sees them, and URIs. Every test uses its own prefix, whose keys it deletes at the end.
#include "redis_test_support.hpp"
#include "run_store_checks.hpp"
#include "run_store_conformance.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_run_store.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace shedlock::providers;
using shedlock::test::raw_redis;
using Catch::Matchers::Contains;
using namespace std::chrono_literals;

namespace {

/// Options with prefix `runs-<name>-<pid>-..`; its run keys are deleted when the guard goes.
struct scratch_prefix {
    explicit scratch_prefix(const std::string& name) {
        options.server = test::redis_test_options();
        options.server.prefix = test::unique_prefix("runs-" + name);
    }
    ~scratch_prefix() {
        try {
            raw_redis redis(options.server);
            const std::string base = options.server.prefix + ":runs:";
            for (const char* task : {"settle", "a", "a ", "b", "B", "aged", "busy", "x", "report", "recent", "both"})
                redis.text({"DEL", base + "{" + task + "}", base + "prod:{" + task + "}"});
            redis.text({"DEL", base + "tasks", base + "prod:tasks"});
        } catch (...) {  // a failed cleanup must not hide the test's own result
        }
    }
    redis_run_options options;
};

}  // namespace

namespace shedlock::conformance {
namespace {

/// Each store under a key prefix of its own, whose keys go with the backend.
class redis_run_store_backend final : public run_store_backend {
public:
    std::string name() const override { return "redis"; }
    std::unique_ptr<run_store> make_store(const run_retention& retention) override {
        prefixes_.push_back(std::make_unique<scratch_prefix>("suite"));
        auto& p = *prefixes_.back();
        p.options.retention = retention;
        p.options.prune_every = 1;
        p.options.server.pool_size = 4;
        return make_redis_run_store(p.options);
    }

private:
    std::vector<std::unique_ptr<scratch_prefix>> prefixes_;
};

}  // namespace

std::unique_ptr<run_store_backend> make_run_store_backend() { return std::make_unique<redis_run_store_backend>(); }

}  // namespace shedlock::conformance

TEST_CASE("redis run store: last N newest first, max_per_task trims the stream exactly", "[redis][run_store]") {
    scratch_prefix p("capped");
    p.options.retention.max_per_task = 5;
    test::check_runs_newest_first_and_capped(*make_redis_run_store(p.options));
    raw_redis redis(p.options.server);
    CHECK(redis.integer({"XLEN", p.options.server.prefix + ":runs:{a}"}) == 5);
}

TEST_CASE("redis run store: tasks() sorted bytewise, names case-sensitive, empty streams hidden", "[redis][run_store]") {
    scratch_prefix p("tasks");
    auto store = make_redis_run_store(p.options);
    test::check_run_tasks_sorted_and_case_sensitive(*store);
    raw_redis redis(p.options.server);
    redis.text({"XTRIM", p.options.server.prefix + ":runs:{b}", "MAXLEN", "0"});
    CHECK(store->tasks() == std::vector<std::string>{"B", "a", "a "});
}

TEST_CASE("redis run store: keys are streams beside the locks, apart per env, unseen by list_locks",
          "[redis][run_store]") {
    scratch_prefix p("keys");
    p.options.server.env = "prod";
    auto store = make_redis_run_store(p.options);
    store->append(test::sample_run("report", 1));
    raw_redis redis(p.options.server);
    const std::string base = p.options.server.prefix + ":runs:prod:";
    CHECK(redis.text({"TYPE", base + "{report}"}) == "stream");
    CHECK(redis.text({"SISMEMBER", base + "tasks", "report"}) == "1");
    auto provider = make_redis_lock_provider(p.options.server);
    auto held = provider->try_lock({"report", 5000ms});
    REQUIRE(held);
    const auto locks = inspect(*provider).list_locks();
    REQUIRE(locks.size() == 1);
    CHECK(locks[0].name == "report");
    held->unlock();
    redis.text({"DEL", p.options.server.prefix + ":prod:{report}", p.options.server.prefix + ":prod:{report}:fence"});
    auto other_env = p.options;
    other_env.server.env.clear();
    CHECK(make_redis_run_store(other_env)->last_runs("report", 5).empty());
}

TEST_CASE("redis run store: a key of another type or a foreign entry is invalid_data", "[redis][run_store]") {
    scratch_prefix p("x");
    auto store = make_redis_run_store(p.options);
    raw_redis redis(p.options.server);
    const std::string key = p.options.server.prefix + ":runs:{x}";
    redis.text({"SET", key, "oops"});
    try {
        store->append(test::sample_run("x", 1));
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::invalid_data);
    }
    redis.text({"DEL", key});
    redis.text({"XADD", key, "*", "lock_name", "x"});
    try {
        store->last_runs("x", 1);
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::invalid_data);
        CHECK_THAT(e.what(), Contains(key) && Contains("scheduled_at"));
    }
}

TEST_CASE("redis run store: from_uri takes exactly the lock URI", "[redis][run_store][uri]") {
    const auto o = redis_run_options::from_uri(parse_provider_uri("redis://:s3cret@db.example:6380/2?prefix=app&env=prod"));
    CHECK(o.server.host == "db.example");
    CHECK(o.server.port == 6380);
    CHECK(o.server.db == 2);
    CHECK(o.server.prefix == "app");
    CHECK(o.server.env == "prod");
    CHECK(o.retention.max_per_task == run_retention{}.max_per_task);
    CHECK_THROWS_WITH(redis_run_options::from_uri(parse_provider_uri("redis://:s3cret@h/0?runs_table=x")),
                      Contains("runs_table") && !Contains("s3cret"));
    auto bad = o;
    bad.server.prefix = "a{b";
    CHECK_THROWS_AS(make_redis_run_store(bad), configuration_error);
}

TEST_CASE("redis run store: an unreachable server is unavailable, without the password", "[redis][run_store]") {
    auto o = redis_run_options::from_uri(parse_provider_uri("redis://:s3cret@127.0.0.1:1/0?connect_timeout=500ms"));
    auto store = make_redis_run_store(o);  // no connection yet
    try {
        store->append(test::sample_run("x", 1));
        FAIL("no error");
    } catch (const storage_error& e) {
        CHECK(e.category() == storage_category::unavailable);
        CHECK_THAT(e.what(), !Contains("s3cret"));
    }
}
