// What a PostgreSQL acquisition sends (docs/sql-providers.md, "Refused attempts"): a refusal of a
// record this process saw is ONE plain UPDATE, any other name the full statement; a record
// deleted elsewhere is inserted again once its sighting is older than known_record_ttl; tokens
// of NULL and full fencing columns; Java ShedLock's statements racing ours on one table.
#include "java_sharing.hpp"
#include "postgres_test_server.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/providers/postgres_lock_provider.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

using namespace shedlock;
using namespace shedlock::providers;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace test_server = shedlock::test::postgres_server;

namespace refusal_cost {

/// The statements the provider sent, in order (the test reads them between calls).
struct statement_log {
    std::mutex mutex;
    std::vector<std::string> sent;
    std::vector<std::string> take() {
        const std::lock_guard<std::mutex> guard(mutex);
        return std::exchange(sent, {});
    }
};

/// A real PostgreSQL connection that writes every statement's text into a log first.
class logged_connection final : public sql::sql_connection {
public:
    logged_connection(std::unique_ptr<sql::sql_connection> inner, std::shared_ptr<statement_log> log)
        : inner_(std::move(inner)), log_(std::move(log)) {}
    sql::sql_result execute(const std::string& sql, const std::vector<sql::sql_param>& params) override {
        note(sql);
        return inner_->execute(sql, params);
    }
    sql::sql_result execute_relaxed(const std::string& sql, const std::vector<sql::sql_param>& params) override {
        note(sql);
        return inner_->execute_relaxed(sql, params);
    }

private:
    void note(const std::string& sql) {
        const std::lock_guard<std::mutex> guard(log_->mutex);
        log_->sent.push_back(sql);
    }
    std::unique_ptr<sql::sql_connection> inner_;
    std::shared_ptr<statement_log> log_;
};

postgres_options options_on(const std::string& table) {
    auto o = postgres_options::from_uri(parse_provider_uri(test_server::uri()));
    o.table = table;
    o.create_schema_if_missing = true;
    return o;
}

using shedlock::test::sql_server::fresh_table;  // <stem>_<pid>, dropped if it is there

/// A provider on `o` whose statements land in `log` (after its start-up catalog query).
std::unique_ptr<sql::sql_lock_provider> logged_provider(const postgres_options& o, std::shared_ptr<statement_log> log) {
    auto inner = postgres_connections(o);
    auto provider = std::make_unique<sql::sql_lock_provider>(
        make_postgres_dialect(o.async_unlock),
        [inner, log]() -> std::unique_ptr<sql::sql_connection> {
            return std::make_unique<logged_connection>(inner(), log);
        },
        o);
    log->take();
    return provider;
}

/// Whether `sql` is the plain UPDATE (no CTE, no INSERT).
bool plain_update(const std::string& sql) {
    return sql.rfind("UPDATE ", 0) == 0 && sql.find("INSERT") == std::string::npos;
}

}  // namespace refusal_cost

using namespace refusal_cost;

TEST_CASE("postgres: a new name is one full statement, a refusal of a known record one plain UPDATE",
          "[postgres][refusal]") {
    for (bool db_time : {false, true}) {
        INFO("db_time " << db_time);
        auto o = options_on(fresh_table("refusal_sent"));
        o.use_db_time = db_time;
        auto log = std::make_shared<statement_log>();
        auto instance = logged_provider(o, log);
        const lock_configuration config{"nightly", std::chrono::minutes{5}};

        auto held = instance->try_lock(config);  // first acquisition of a name: the row is inserted
        REQUIRE(held);
        auto sent = log->take();
        REQUIRE(sent.size() == 1);
        CHECK_THAT(sent[0], StartsWith("WITH"));

        CHECK_FALSE(instance->try_lock(config));  // known record, live: one UPDATE of 0 rows
        sent = log->take();
        REQUIRE(sent.size() == 1);
        CHECK(plain_update(sent[0]));

        // Another instance has seen nothing yet: its first attempt runs the full statement, and
        // the refusal it gets (the row is there) is a sighting, so the next one is the UPDATE.
        auto other_log = std::make_shared<statement_log>();
        auto other = logged_provider(o, other_log);
        CHECK_FALSE(other->try_lock(config));
        sent = other_log->take();
        REQUIRE(sent.size() == 1);
        CHECK_THAT(sent[0], StartsWith("WITH"));
        CHECK_FALSE(other->try_lock(config));
        sent = other_log->take();
        REQUIRE(sent.size() == 1);
        CHECK(plain_update(sent[0]));

        // The UPDATE takes an expired record over, token above the last one.
        const auto first_token = held->fencing_token();
        held->unlock();
        log->take();
        auto next = other->try_lock(config);
        REQUIRE(next);
        sent = other_log->take();
        REQUIRE(sent.size() == 1);
        CHECK(plain_update(sent[0]));
        REQUIRE(next->fencing_token());
        CHECK(*next->fencing_token() > *first_token);
        next->unlock();
        test_server::exec("DROP TABLE " + o.table);
    }
}

TEST_CASE("postgres: a record deleted by another process is acquired again once its sighting is older than "
          "known_record_ttl",
          "[postgres][refusal]") {
    auto o = options_on(fresh_table("refusal_deleted"));
    const lock_configuration config{"deleted", std::chrono::minutes{5}};
    const std::string delete_row = "DELETE FROM " + o.table + " WHERE name = 'deleted'";

    SECTION("within the TTL the UPDATE finds no row and the attempt is refused: the documented cost") {
        o.known_record_ttl = std::chrono::hours{1};
        auto instance = make_postgres_lock_provider(o);
        instance->try_lock(config)->unlock();
        test_server::exec(delete_row);
        CHECK_FALSE(instance->try_lock(config));
    }
    SECTION("after the TTL the full statement inserts the record again") {
        o.known_record_ttl =
            postgres_options::from_uri(parse_provider_uri(test_server::uri() + "?known_record_ttl=200ms")).known_record_ttl;
        REQUIRE(o.known_record_ttl == std::chrono::milliseconds{200});
        auto instance = make_postgres_lock_provider(o);
        instance->try_lock(config)->unlock();
        test_server::exec(delete_row);
        // Wait for the condition, not for a time: the first attempt past the TTL must succeed.
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds{30};
        std::optional<lock_handle> again;
        while (!again && std::chrono::steady_clock::now() < give_up) {
            again = instance->try_lock(config);
            if (!again) std::this_thread::sleep_for(std::chrono::milliseconds{20});
        }
        REQUIRE(again);
        CHECK(inspect(*instance).list_locks().size() == 1);
        again->unlock();
    }
    SECTION("a delete through any provider of this process is seen at once") {
        o.known_record_ttl = std::chrono::hours{1};
        auto instance = make_postgres_lock_provider(o);
        auto operator_tool = make_postgres_lock_provider(o);
        instance->try_lock(config)->unlock();  // the record is seen, and free
        operator_tool->delete_records({config.name()});
        auto again = instance->try_lock(config);
        CHECK(again);
    }
    test_server::exec("DROP TABLE IF EXISTS " + o.table);
}

TEST_CASE("postgres: known_record_ttl in the URI is a duration, 0 included", "[postgres][refusal]") {
    const auto ttl = [](const std::string& value) {
        return postgres_options::from_uri(parse_provider_uri(test_server::uri() + "?known_record_ttl=" + value))
            .known_record_ttl;
    };
    CHECK(ttl("0s") == std::chrono::milliseconds{0});
    CHECK(ttl("PT2M") == std::chrono::minutes{2});
    CHECK(postgres_options{}.known_record_ttl == std::chrono::minutes{10});  // above an every-minute period
    CHECK_THROWS_WITH(ttl("-1s"), Contains("known_record_ttl"));
    CHECK_THROWS_WITH(ttl("60"), Contains("known_record_ttl"));
}

TEST_CASE("postgres: a NULL fencing token counts as 0", "[postgres][refusal][fencing]") {
    for (const std::string type : {"BIGINT", "INTEGER"}) {
        INFO(type);
        const std::string table = fresh_table("refusal_null_token");
        test_server::exec("CREATE TABLE " + table +
                          " (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, "
                          "locked_by VARCHAR(255) NOT NULL, fencing_token " + type + ")");
        const std::string expired_null = "UPDATE " + table +
                                         " SET fencing_token = NULL, lock_until = now() AT TIME ZONE 'UTC' - "
                                         "interval '1 minute'";
        test_server::exec("INSERT INTO " + table + " VALUES ('n', now() AT TIME ZONE 'UTC' - interval '1 minute', "
                          "now() AT TIME ZONE 'UTC', 'someone', NULL)");
        const std::int64_t expected = type == "BIGINT" ? test_server::first_token() : 1;
        auto provider = make_postgres_lock_provider(options_on(table));
        const lock_configuration config{"n", std::chrono::minutes{5}};

        auto by_full_statement = provider->try_lock(config);  // a name this provider has not seen
        REQUIRE(by_full_statement);
        CHECK(by_full_statement->fencing_token() == expected);
        by_full_statement->unlock();

        test_server::exec(expired_null);
        auto by_update = provider->try_lock(config);  // seen: the plain UPDATE
        REQUIRE(by_update);
        CHECK(by_update->fencing_token() == expected);
        by_update->unlock();
        test_server::exec("DROP TABLE " + table);
    }
}

TEST_CASE("postgres: a full INTEGER fencing column is a configuration error naming the column and the fix",
          "[postgres][refusal][fencing]") {
    const std::string table = fresh_table("refusal_full_token");
    test_server::exec("CREATE TABLE " + table +
                      " (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, "
                      "locked_by VARCHAR(255) NOT NULL, fencing_token INTEGER NOT NULL DEFAULT 0)");
    const std::string full = "UPDATE " + table +
                             " SET fencing_token = 2147483647, lock_until = now() AT TIME ZONE 'UTC' - interval '1 minute'";
    test_server::exec("INSERT INTO " + table + " VALUES ('f', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', 'x', 0)");
    test_server::exec(full);
    auto provider = make_postgres_lock_provider(options_on(table));
    const lock_configuration config{"f", std::chrono::minutes{5}};
    const auto check_refused = [&] {
        try {
            (void)provider->try_lock(config);
            FAIL("the acquisition past INTEGER's maximum succeeded");
        } catch (const storage_error& e) {
            CHECK(e.category() == storage_category::misconfigured);
            CHECK(e.advice() == retry_advice::permanent);
            CHECK_THAT(e.what(), Contains("\"fencing_token\"") && Contains(table) && Contains("TYPE bigint") &&
                                     Contains("22003"));
        }
    };
    check_refused();  // the full statement (the name is new to this provider)
    test_server::exec("UPDATE " + table + " SET fencing_token = 0");
    provider->try_lock(config)->unlock();  // now seen
    test_server::exec(full);
    check_refused();  // the plain UPDATE
    test_server::exec("DROP TABLE " + table);
}

namespace refusal_cost {

/// Java ShedLock's JdbcTemplate statements: INSERT when its registry has not seen the name, else
/// (and after a failed insert) the plain UPDATE; unlock sets now. Java binds its own clock's
/// times; here the server's now() stands in for them, so that both sides read one clock.
class java_client_time {
public:
    java_client_time(const std::string& table, std::string owner)
        : connection_(test_server::conninfo()), table_(table), owner_(std::move(owner)) {}

    bool lock(const std::string& name) {
        pqxx::nontransaction w(connection_);
        const std::string now = "now() AT TIME ZONE 'UTC'";
        if (!known_) {
            known_ = true;
            if (w.exec_params("INSERT INTO " + table_ + " (name, lock_until, locked_at, locked_by) VALUES ($1, " + now +
                                  " + interval '1 minute', " + now + ", $2) ON CONFLICT (name) DO NOTHING",
                              name, owner_)
                    .affected_rows() == 1)
                return true;
        }
        return w.exec_params("UPDATE " + table_ + " SET lock_until = " + now + " + interval '1 minute', locked_at = " +
                                 now + ", locked_by = $2 WHERE name = $1 AND lock_until <= " + now,
                             name, owner_)
                   .affected_rows() == 1;
    }
    void unlock(const std::string& name) {
        pqxx::nontransaction(connection_)
            .exec_params("UPDATE " + table_ + " SET lock_until = now() AT TIME ZONE 'UTC' WHERE name = $1", name);
    }

private:
    pqxx::connection connection_;
    std::string table_, owner_;
    bool known_ = false;
};

}  // namespace refusal_cost

TEST_CASE("postgres: Java ShedLock's INSERT and UPDATE racing our statements on one table exclude each other",
          "[postgres][refusal][java]") {
    const std::string table = fresh_table("refusal_java_race");
    auto o = options_on(table);
    o.use_db_time = true;  // one clock for both sides: the server's
    (void)make_postgres_lock_provider(o);
    constexpr int rounds = 300;
    std::atomic<int> holders{0}, overlaps{0}, java_held{0}, ours_held{0};
    const auto hold = [&](std::atomic<int>& count) {
        if (holders.fetch_add(1) != 0) overlaps.fetch_add(1);
        count.fetch_add(1);
        std::this_thread::yield();
        holders.fetch_sub(1);
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
        threads.emplace_back([&, i] {
            java_client_time java(table, "java-" + std::to_string(i));
            for (int r = 0; r < rounds; ++r)
                if (java.lock("race")) {
                    hold(java_held);
                    java.unlock("race");
                }
        });
        threads.emplace_back([&] {
            auto ours = make_postgres_lock_provider(o);
            for (int r = 0; r < rounds; ++r)
                if (auto held = ours->try_lock({"race", std::chrono::minutes{1}})) {
                    hold(ours_held);
                    held->unlock();
                }
        });
    }
    for (auto& t : threads) t.join();
    INFO("held by Java " << java_held << ", by ours " << ours_held);
    CHECK(overlaps == 0);
    CHECK(java_held > 0);  // both sides won some rounds, so the check above means something
    CHECK(ours_held > 0);
    test_server::exec("DROP TABLE " + table);
}
