#pragma once
/// \file
/// Claims, states and fences in process memory: the executable spec of idempotency_store. A
/// generic in-process store in core (the memory: backend offers it as its idempotency store).

#include <shedlock/idempotency_store.hpp>

#include <map>
#include <mutex>

namespace shedlock {

/// Every operation runs under one mutex, so each is atomic in this process. Records die with the
/// process: for tests and single-instance deployments.
///
/// Thread safety: safe for concurrent use.
class memory_idempotency_store final : public idempotency_store {
public:
    explicit memory_idempotency_store(const shedlock::clock& clock = system_clock::instance())
        : idempotency_store(clock) {}

private:
    claim_result do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                          std::optional<std::int64_t> fencing_token, const std::string& owner) override;
    finish_status do_finish(const idempotency_claim& claim, std::string_view state, const std::string& result) override;
    bool do_transition(const std::string& key, const std::string& from, const std::string& to) override;
    bool do_fence(const std::string& resource, std::int64_t token) override;
    std::vector<claim_record> do_list(const std::optional<std::string>& key) override;
    bool do_reset(const std::string& key) override;
    std::size_t do_purge(timestamp cutoff) override;

    std::mutex mutex_;
    std::map<std::string, claim_record> records_;
    std::map<std::string, std::int64_t> fences_;
};

}  // namespace shedlock
