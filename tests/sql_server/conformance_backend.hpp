#pragma once
// The conformance backend of an SQL server (PostgreSQL, MySQL/MariaDB) in the mode the program
// was built for (mapped_table_modes.hpp): client_time, db_time, or ShedLock's own DDL under
// other names; each mode on a table of its own. A backend's file gives only its options type,
// its provider and ShedLock's DDL, renamed, in its own types.
#include "test_env.hpp"

#include <conformance.hpp>
#include <mapped_table_modes.hpp>

#include <shedlock/provider_uri.hpp>

#include <functional>
#include <memory>
#include <string>

namespace shedlock::conformance {

/// ShedLock's documented DDL of a backend under the names of the mapped and the upper_case
/// modes (mapped_table_modes.hpp), and how to run it on the test server.
struct renamed_ddl {
    std::string mapped;
    std::string upper_case;
    std::function<void(const std::string&)> exec;
};

template <class Options>
class sql_server_backend final : public backend {
public:
    using make_function = std::function<std::unique_ptr<lock_provider>(const Options&, const shedlock::clock&)>;

    /// `uri`: the test server's. `ddl` creates the mode's table when the mode brings its own
    /// (mapped, upper_case); the default modes' tables the provider creates.
    /// `tokens_from_one`: a new lock's first token is 1 (false: PostgreSQL's tokens carry the
    /// WAL timeline in their high bits, so only "higher than the last" holds).
    sql_server_backend(std::string name, std::string uri, make_function make, const renamed_ddl& ddl,
                       bool tokens_from_one = true)
        : name_(std::move(name)), uri_(std::move(uri)), make_(std::move(make)), mode_(sql_mode_of(test::test_mode())),
          tokens_from_one_(tokens_from_one) {
        if (mode_.own_ddl()) create_table(ddl);
    }

    std::string name() const override { return name_ + " (" + test::test_mode() + ")"; }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        auto options = Options::from_uri(parse_provider_uri(mode_.uri_for(uri_)));
        if (!mode_.own_ddl()) {
            options.table = mode_.db_time ? "conformance_db_time" : "conformance_client_time";
            options.create_schema_if_missing = true;
        }
        options.use_db_time = mode_.db_time;
        options.pool_size = 8;
        return make_(options, clock);
    }
    bool honours_injected_clock() const override { return !mode_.db_time; }
    bool expects_fencing() const override { return mode_.expects_fencing(); }
    bool tokens_start_at_one() const override { return tokens_from_one_; }

private:
    void create_table(const renamed_ddl& ddl) const { ddl.exec(mode_.mapped ? ddl.mapped : ddl.upper_case); }

    std::string name_;
    std::string uri_;
    make_function make_;
    sql_mode mode_;
    bool tokens_from_one_;
};

}  // namespace shedlock::conformance
