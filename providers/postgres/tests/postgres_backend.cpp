// The conformance suite against a real PostgreSQL server (SHEDLOCK_TEST_POSTGRES_URI); mode
// client_time or db_time (the server's clock inside every statement). Each mode has its own table.
#include "server_env.hpp"
#include "test_env.hpp"

#include <conformance.hpp>

#include <shedlock/providers/postgres_lock_provider.hpp>

namespace shedlock::conformance {
namespace {

class postgres_backend final : public backend {
public:
    postgres_backend() : db_time_(test::test_mode() == "db_time") {}

    std::string name() const override { return db_time_ ? "postgres (db time)" : "postgres"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        auto options = providers::postgres_options::from_uri(parse_provider_uri(
            test::required_env("SHEDLOCK_TEST_POSTGRES_URI", "providers/postgres/server.sh")));
        options.table = db_time_ ? "conformance_db_time" : "conformance_client_time";
        options.use_db_time = db_time_;
        options.create_schema_if_missing = true;
        options.pool_size = 8;
        return providers::make_postgres_lock_provider(options, clock);
    }
    bool honours_injected_clock() const override { return !db_time_; }

private:
    bool db_time_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<postgres_backend>(); }

}  // namespace shedlock::conformance
