#pragma once
// A lock provider whose backend is down: every try_lock throws storage_error(unavailable), and
// list_locks() too when given the message to throw (else it lists nothing).

#include <shedlock/error.hpp>
#include <shedlock/lock_provider.hpp>

#include <string>
#include <utility>

namespace shedlock::test {

class unavailable_provider final : public lock_provider, public lock_inspector {
public:
    explicit unavailable_provider(std::string list_error = {}) : list_error_(std::move(list_error)) {}
    bool supports_fencing() const override { return true; }
    lock_inspector* inspector() noexcept override { return this; }
    timestamp lock_time_now() override { return clock().now(); }
    std::vector<lock_record> list_locks() override {
        if (!list_error_.empty()) throw storage_error(storage_category::unavailable, list_error_);
        return {};
    }

private:
    void do_force_release(const lock_record&, timestamp) override {}
    std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override {
        throw storage_error(storage_category::unavailable, "connection refused");
    }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, std::chrono::milliseconds, std::chrono::milliseconds) override {
        return std::nullopt;
    }
    std::string list_error_;
};

}  // namespace shedlock::test
