#pragma once
/// \file
/// In-process lock provider: the executable reference of the lock semantics.

#include <shedlock/lock_provider.hpp>

#include <mutex>
#include <string>
#include <unordered_map>

namespace shedlock::providers {

/// Holds lock records in a hash map guarded by a mutex. Exactly the semantics of the SQL and Redis
/// providers, so it serves as the conformance suite's reference and as the provider for
/// single-instance deployments and tests. Records live as long as the provider.
///
/// Thread safety: safe for concurrent use. It does not coordinate separate processes.
class memory_lock_provider final : public lock_provider, public lock_inspector {
public:
    explicit memory_lock_provider(const shedlock::clock& clock = system_clock::instance()) : lock_provider(clock) {}

    bool supports_fencing() const override { return true; }
    lock_inspector* inspector() noexcept override { return this; }

    std::vector<lock_record> list_locks() override;
    void delete_records(const std::vector<std::string>& names) override;
    std::size_t delete_expired_records(const std::vector<std::string>& names, timestamp expired_by) override;
    /// The provider's clock: memory has no server of its own.
    timestamp lock_time_now() override { return clock().now(); }

private:
    void do_force_release(const lock_record& live, timestamp now) override { release_record(live, now); }
    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override;
    void do_unlock(const lease& held) override;
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds minimum_hold) override;

    std::mutex mutex_;
    // Hashed: a scheduler burst looks up every lock twice, and a tree of long, similar names
    // costs a string comparison per level. list_locks() sorts.
    std::unordered_map<std::string, lock_record> records_;
};

}  // namespace shedlock::providers
