#pragma once
// The validation of check_tasks / prepare_tasks asks scheduler_options::claims for "is there an
// idempotency store"; the asio scheduler claims through a claim_service instead. This store
// stands in for it during validation and in claim_for_firing(), which only read the pointer;
// every operation on it is refused.
#include <shedlock/idempotency_store.hpp>

namespace shedlock::asio::detail {

class claims_marker final : public idempotency_store {
public:
    claims_marker();

private:
    claim_result do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                          std::optional<std::int64_t> fencing_token, const std::string& owner) override;
    finish_status do_finish(const idempotency_claim& claim, std::string_view state, const std::string& result) override;
    bool do_transition(const std::string& key, const std::string& from, const std::string& to) override;
    bool do_fence(const std::string& resource, std::int64_t token) override;
    std::vector<claim_record> do_list(const std::optional<std::string>& key) override;
    bool do_reset(const std::string& key) override;
    std::size_t do_purge(timestamp cutoff) override;
};

}  // namespace shedlock::asio::detail
