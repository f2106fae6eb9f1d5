// A lock table shared with Java ShedLock in db time (usingDbTime()): the statements Java's
// MySqlServerTimeStatementsSource sends, run through the MariaDB C API beside our provider.
#include "mysql_connection.hpp"  // a MariaDB Connector/C session with bound parameters
#include "mysql_test_server.hpp"
#include "java_sharing.hpp"

#include <shedlock/providers/mysql_lock_provider.hpp>

#include <catch2/catch.hpp>

#include <iostream>

using namespace shedlock;
using namespace shedlock::providers;

namespace mysql_server = shedlock::test::mysql_server;

namespace java_sharing {

/// A Java ShedLock instance in db time on `table` (ShedLock's default column names): INSERT
/// IGNORE, and when that inserted nothing the expired-only UPDATE; unlock to
/// max(locked_at + lockAtLeastFor, now). Times in microseconds, as Java binds them.
class java_instance {
public:
    java_instance(const std::string& table, std::string owner)
        : session_(mysql_options::from_uri(parse_provider_uri(mysql_server::uri()))), table_(table), owner_(std::move(owner)) {}

    bool lock(const std::string& name, std::int64_t at_most_micros = 60'000'000) {
        const std::string now = "UTC_TIMESTAMP(3)";
        const std::string until = "TIMESTAMPADD(MICROSECOND, ?, " + now + ")";
        const auto inserted = session_.execute("INSERT IGNORE INTO " + table_ + "(name, lock_until, locked_at, locked_by) "
                                               "VALUES(?, " + until + ", " + now + ", ?)",
                                               {name, at_most_micros, owner_});
        if (inserted.affected_rows > 0) return true;
        return session_.execute("UPDATE " + table_ + " SET lock_until = " + until + ", locked_at = " + now +
                                    ", locked_by = ? WHERE name = ? AND lock_until <= " + now,
                                {at_most_micros, owner_, name})
                   .affected_rows > 0;
    }
    void unlock(const std::string& name) {
        const std::string at_least = "TIMESTAMPADD(MICROSECOND, ?, locked_at)";
        session_.execute("UPDATE " + table_ + " SET lock_until = IF (" + at_least + " > UTC_TIMESTAMP(3), " + at_least +
                             ", UTC_TIMESTAMP(3)) WHERE name = ? AND locked_by = ?",
                         {std::int64_t{0}, std::int64_t{0}, name, owner_});
    }

private:
    providers::detail::mysql_connection session_;
    std::string table_;
    std::string owner_;
};

}  // namespace java_sharing

using namespace java_sharing;
using namespace shedlock::test::sql_server;

TEST_CASE("mysql: Java ShedLock in db time re-locks right after its unlock, on our DDL and on its own", "[mysql][java]") {
    constexpr int cycles = 1000;
    // Java's documented MySQL DDL. UTC_TIMESTAMP(3) is already whole milliseconds, so nothing
    // rounds here (unlike PostgreSQL's now()); the session time zone is UTC as ours sets it.
    const auto refused = refused_relocks<java_instance>(
        "java_theirs", "CREATE TABLE {t}(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL, locked_at "
                       "TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))",
        cycles);
    std::cout << "MariaDB: Java re-locks refused right after unlock, " << cycles << " cycles: DATETIME(3) (ours) "
              << refused.ours << ", TIMESTAMP(3) (Java's DDL) " << refused.theirs << "\n";
    CHECK(refused.ours == 0);
    CHECK(refused.theirs == 0);
}

TEST_CASE("mysql: our provider and Java ShedLock's statements exclude each other on one table", "[mysql][java]") {
    check_exclusion_on_one_table<java_instance>();
}
