// The conformance suite against SQLite: one database file shared by every provider (and forked
// process) of the run; mode client_time or db_time (SQLite's own clock).
#include "test_env.hpp"

#include <conformance.hpp>

#include <shedlock/providers/sqlite_lock_provider.hpp>

namespace shedlock::conformance {
namespace {

class sqlite_backend final : public backend {
public:
    sqlite_backend() : db_time_(test::test_mode() == "db_time"), path_(test::scratch_dir() + "/conformance.db") {}

    std::string name() const override { return db_time_ ? "sqlite (db time)" : "sqlite"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        providers::sqlite_options options;
        options.path = path_;
        options.use_db_time = db_time_;
        options.create_schema_if_missing = true;
        return providers::make_sqlite_lock_provider(options, clock);
    }
    bool honours_injected_clock() const override { return !db_time_; }

private:
    bool db_time_;
    std::string path_;
};

}  // namespace

std::unique_ptr<backend> make_backend() { return std::make_unique<sqlite_backend>(); }

}  // namespace shedlock::conformance
