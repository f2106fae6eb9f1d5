// The conformance suite against a real MariaDB/MySQL server (SHEDLOCK_TEST_MYSQL_URI); mode
// client_time or db_time (the server's clock inside every statement), or mapped / upper_case
// (ShedLock's own DDL under other names, see mapped_table_modes.hpp). Each mode has its own table.
#include "mysql_test_server.hpp"
#include "test_env.hpp"

#include <conformance.hpp>
#include <mapped_table_modes.hpp>

#include <shedlock/providers/mysql_lock_provider.hpp>

namespace shedlock::conformance {
namespace {

namespace server = test::mysql_server;

// ShedLock's documented MySQL DDL (TIMESTAMP(3) columns), renamed, with the one change
// docs/sql-providers.md asks for: the name VARBINARY, so names compare byte for byte.
void create_shedlock_table(const sql_mode& mode) {
    const std::string ddl =
        mode.mapped ? "CREATE TABLE IF NOT EXISTS conformance_mapped(job VARBINARY(256) NOT NULL, until_ts TIMESTAMP(3) "
                      "NOT NULL, at_ts TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), by_host VARCHAR(255) NOT NULL, "
                      "fence_no BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (job))"
                    : "CREATE TABLE IF NOT EXISTS CONFORMANCE_UPPER(NAME VARBINARY(256) NOT NULL, LOCK_UNTIL TIMESTAMP(3) "
                      "NOT NULL, LOCKED_AT TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), LOCKED_BY VARCHAR(255) NOT "
                      "NULL, PRIMARY KEY (NAME))";
    server::exec(ddl);  // MariaDB's IF NOT EXISTS does not race: it only warns
}

class mysql_backend final : public backend {
public:
    mysql_backend() : mode_(sql_mode_of(test::test_mode())) {
        if (mode_.own_ddl()) create_shedlock_table(mode_);
    }

    std::string name() const override { return "mysql (" + test::test_mode() + ")"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        auto options = providers::mysql_options::from_uri(parse_provider_uri(mode_.uri_for(server::uri())));
        if (!mode_.own_ddl()) {
            options.table = mode_.db_time ? "conformance_db_time" : "conformance_client_time";
            options.create_schema_if_missing = true;
        }
        options.use_db_time = mode_.db_time;
        options.pool_size = 8;
        return providers::make_mysql_lock_provider(options, clock);
    }
    bool honours_injected_clock() const override { return !mode_.db_time; }
    bool expects_fencing() const override { return mode_.expects_fencing(); }

private:
    sql_mode mode_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<mysql_backend>(); }

}  // namespace shedlock::conformance
