// The conformance suite against a real PostgreSQL server (SHEDLOCK_TEST_POSTGRES_URI); mode
// client_time or db_time (the server's clock inside every statement), or mapped / upper_case
// (ShedLock's own DDL under other names, see mapped_table_modes.hpp). Each mode has its own table.
#include "postgres_test_server.hpp"
#include "test_env.hpp"

#include <conformance.hpp>
#include <mapped_table_modes.hpp>

#include <shedlock/providers/postgres_lock_provider.hpp>

namespace shedlock::conformance {
namespace {

namespace server = test::postgres_server;

// ShedLock's documented PostgreSQL DDL (TIMESTAMP columns), renamed; the mapped table also has
// a fencing column under its own name.
void create_shedlock_table(const sql_mode& mode) {
    const std::string ddl =
        mode.mapped ? "CREATE TABLE IF NOT EXISTS conformance_mapped(job VARCHAR(64) NOT NULL, until_ts TIMESTAMP NOT NULL, "
                      "at_ts TIMESTAMP NOT NULL, by_host VARCHAR(255) NOT NULL, fence_no BIGINT NOT NULL DEFAULT 0, "
                      "PRIMARY KEY (job))"
                    : "CREATE TABLE IF NOT EXISTS \"CONFORMANCE_UPPER\"(\"NAME\" VARCHAR(64) NOT NULL, \"LOCK_UNTIL\" "
                      "TIMESTAMP NOT NULL, \"LOCKED_AT\" TIMESTAMP NOT NULL, \"LOCKED_BY\" VARCHAR(255) NOT NULL, "
                      "PRIMARY KEY (\"NAME\"))";
    try {
        server::exec(ddl);
    } catch (const std::exception&) {
        // Test programs of this mode start in parallel: IF NOT EXISTS can still lose a race on
        // the catalog. The provider below fails clearly if the table is really missing.
    }
}

class postgres_backend final : public backend {
public:
    postgres_backend() : mode_(sql_mode_of(test::test_mode())) {
        if (mode_.own_ddl()) create_shedlock_table(mode_);
    }

    std::string name() const override { return "postgres (" + test::test_mode() + ")"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        auto options = providers::postgres_options::from_uri(parse_provider_uri(mode_.uri_for(server::uri())));
        if (!mode_.own_ddl()) {
            options.table = mode_.db_time ? "conformance_db_time" : "conformance_client_time";
            options.create_schema_if_missing = true;
        }
        options.use_db_time = mode_.db_time;
        options.pool_size = 8;
        return providers::make_postgres_lock_provider(options, clock);
    }
    bool honours_injected_clock() const override { return !mode_.db_time; }
    bool expects_fencing() const override { return mode_.expects_fencing(); }

private:
    sql_mode mode_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<postgres_backend>(); }

}  // namespace shedlock::conformance
