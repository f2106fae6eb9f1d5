#pragma once
// The idempotency conformance backend of a SQL database: every store of one backend object on one
// claims table of its own (`claims_<pid>_<n>`), created by the first store and dropped with the
// backend by the process that created it (never by a forked child).

#include "idempotency_conformance.hpp"

#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace shedlock::test {

template <class Options>
class sql_claims_backend final : public conformance::idempotency_backend {
public:
    using make_function = std::function<std::unique_ptr<idempotency_store>(const Options&, const shedlock::clock&)>;
    using exec_function = std::function<void(const std::string&)>;

    sql_claims_backend(std::string name, Options options, make_function make, exec_function exec)
        : name_(std::move(name)), options_(std::move(options)), make_(std::move(make)), exec_(std::move(exec)),
          table_("claims_" + std::to_string(::getpid()) + "_" + std::to_string(next_table())) {
        exec_("DROP TABLE IF EXISTS " + table_);
        options_.table = table_;
        options_.create_schema_if_missing = true;
        options_.pool_size = 8;
    }
    ~sql_claims_backend() override {
        if (::getpid() != creator_) return;
        try {
            exec_("DROP TABLE IF EXISTS " + table_);
        } catch (...) {  // a failed cleanup must not hide the test's own result
        }
    }
    sql_claims_backend(const sql_claims_backend&) = delete;
    sql_claims_backend& operator=(const sql_claims_backend&) = delete;

    std::string name() const override { return name_; }
    std::unique_ptr<idempotency_store> make_store(const shedlock::clock& clock) override { return make_(options_, clock); }
    const std::string& table() const { return table_; }

private:
    static int next_table() {
        static std::atomic<int> counter{0};
        return counter.fetch_add(1);
    }

    std::string name_;
    Options options_;
    make_function make_;
    exec_function exec_;
    std::string table_;
    pid_t creator_ = ::getpid();
};

}  // namespace shedlock::test
