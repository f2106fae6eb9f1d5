#pragma once
// A lock provider whose backend is down: every try_lock throws storage_error(unavailable).

#include <shedlock/error.hpp>
#include <shedlock/lock_provider.hpp>

namespace shedlock::test {

class unavailable_provider final : public lock_provider {
public:
    bool supports_fencing() const override { return true; }
    std::vector<lock_record> list_locks() override { return {}; }

private:
    std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override {
        throw storage_error(storage_category::unavailable, "connection refused");
    }
    void do_unlock(const lease&) override {}
    std::optional<lease> do_extend(const lease&, std::chrono::milliseconds, std::chrono::milliseconds) override {
        return std::nullopt;
    }
};

}  // namespace shedlock::test
