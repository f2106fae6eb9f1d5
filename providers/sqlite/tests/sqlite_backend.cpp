// The conformance suite against SQLite: one database file shared by every provider (and forked
// process) of the run; mode client_time or db_time (SQLite's own clock), or mapped / upper_case
// (ShedLock's DDL under other names, see mapped_table_modes.hpp).
#include "test_env.hpp"

#include <conformance.hpp>
#include <mapped_table_modes.hpp>

#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <SQLiteCpp/Database.h>

namespace shedlock::conformance {
namespace {

// ShedLock's generic DDL (TIMESTAMP(3) is only a type name to SQLite), renamed.
void create_shedlock_table(const std::string& path, const sql_mode& mode) {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 10'000);
    db.exec(mode.mapped ? "CREATE TABLE IF NOT EXISTS conformance_mapped(job VARCHAR(64) NOT NULL, until_ts TIMESTAMP(3) "
                          "NOT NULL, at_ts TIMESTAMP(3) NOT NULL, by_host VARCHAR(255) NOT NULL, fence_no BIGINT NOT NULL "
                          "DEFAULT 0, PRIMARY KEY (job))"
                        : "CREATE TABLE IF NOT EXISTS CONFORMANCE_UPPER(NAME VARCHAR(64) NOT NULL, LOCK_UNTIL TIMESTAMP(3) "
                          "NOT NULL, LOCKED_AT TIMESTAMP(3) NOT NULL, LOCKED_BY VARCHAR(255) NOT NULL, PRIMARY KEY (NAME))");
}

class sqlite_backend final : public backend {
public:
    sqlite_backend() : mode_(sql_mode_of(test::test_mode())), path_(test::scratch_dir() + "/conformance.db") {
        if (mode_.own_ddl()) create_shedlock_table(path_, mode_);
    }

    std::string name() const override { return "sqlite (" + test::test_mode() + ")"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        auto options = providers::sqlite_options::from_uri(parse_provider_uri(mode_.uri_for("sqlite:" + path_)));
        options.use_db_time = mode_.db_time;
        options.create_schema_if_missing = !mode_.own_ddl();
        return providers::make_sqlite_lock_provider(options, clock);
    }
    bool honours_injected_clock() const override { return !mode_.db_time; }
    bool expects_fencing() const override { return mode_.expects_fencing(); }

private:
    sql_mode mode_;
    std::string path_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<sqlite_backend>(); }

}  // namespace shedlock::conformance
