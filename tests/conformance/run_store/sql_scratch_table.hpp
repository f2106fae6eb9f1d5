#pragma once
// What the SQL run stores' tests on a real server share (PostgreSQL, MySQL): a run-record table
// of the test's own, and the run-store conformance backend that puts each store on one.

#include "run_store_conformance.hpp"

#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::test {

/// Run-store options `options` for table `runs_<name>_<pid>`, created on demand. `exec` runs a
/// statement on the test server beside the store under test; the table is dropped with it
/// before the test and again when the guard goes out of scope.
template <class Options>
struct sql_scratch_table {
    using exec_function = std::function<void(const std::string&)>;

    sql_scratch_table(const std::string& name, Options server_options, exec_function exec)
        : table("runs_" + name + "_" + std::to_string(::getpid())), options(std::move(server_options)),
          exec_(std::move(exec)) {
        exec_("DROP TABLE IF EXISTS " + table);
        options.table = table;
        options.create_schema_if_missing = true;
    }
    ~sql_scratch_table() {
        try {
            exec_("DROP TABLE IF EXISTS " + table);
        } catch (...) {  // a failed cleanup must not hide the test's own result
        }
    }
    sql_scratch_table(const sql_scratch_table&) = delete;
    sql_scratch_table& operator=(const sql_scratch_table&) = delete;

    std::string table;
    Options options;

private:
    exec_function exec_;
};

/// The conformance backend of a SQL run store: each store on a `Table` of its own (a
/// sql_scratch_table made from a name), dropped with the backend; `make` opens the store.
template <class Table>
class sql_run_store_backend final : public conformance::run_store_backend {
public:
    using options_type = decltype(Table::options);
    using make_function = std::function<std::unique_ptr<run_store>(const options_type&)>;

    sql_run_store_backend(std::string name, make_function make) : name_(std::move(name)), make_(std::move(make)) {}

    std::string name() const override { return name_; }
    std::unique_ptr<run_store> make_store(const run_retention& retention) override {
        tables_.push_back(std::make_unique<Table>("suite" + std::to_string(tables_.size())));
        auto& t = *tables_.back();
        t.options.retention = retention;
        t.options.prune_every = 1;
        t.options.pool_size = 4;
        return make_(t.options);
    }

private:
    std::string name_;
    make_function make_;
    std::vector<std::unique_ptr<Table>> tables_;
};

}  // namespace shedlock::test
