#include <shedlock/memory_idempotency_store.hpp>

namespace shedlock {

claim_result memory_idempotency_store::do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                                                std::optional<std::int64_t> fencing_token, const std::string& owner) {
    const auto now = clock().now();
    const std::lock_guard lock(mutex_);
    auto [it, inserted] = records_.try_emplace(key);
    claim_record& r = it->second;
    if (!inserted) {
        const bool failed = r.state == claim_state::failed;
        const bool expired = r.state == claim_state::running && r.expires_at <= now;
        if (!failed && !expired) {
            const auto status = r.state == claim_state::done ? claim_status::already_done : claim_status::in_progress;
            return {status, std::nullopt, r};
        }
    }
    const std::string previous_failure = r.state == claim_state::failed ? r.result : std::string();
    r.key = key;
    r.state = claim_state::running;
    r.owner = owner;
    r.fencing_token = fencing_token;
    r.attempt += 1;
    r.claimed_at = now;
    r.expires_at = now + claim_for;
    r.finished_at.reset();
    r.result = previous_failure;
    idempotency_claim claim{key, owner, r.attempt, fencing_token, now, r.expires_at, previous_failure};
    return {claim_status::claimed, std::move(claim), r};
}

finish_status memory_idempotency_store::do_finish(const idempotency_claim& claim, std::string_view state,
                                                  const std::string& result) {
    const auto now = clock().now();
    const std::lock_guard lock(mutex_);
    const auto it = records_.find(claim.key);
    if (it == records_.end() || it->second.owner != claim.owner || it->second.state != claim_state::running)
        return finish_status::claim_lost;
    it->second.state = std::string(state);
    it->second.finished_at = now;
    it->second.result = result;
    return finish_status::finished;
}

bool memory_idempotency_store::do_transition(const std::string& key, const std::string& from, const std::string& to) {
    const auto now = clock().now();
    const std::lock_guard lock(mutex_);
    const auto it = records_.find(key);
    if (from.empty()) {
        if (it != records_.end()) return false;
        records_[key] = claim_record{key, to, "", std::nullopt, 0, now, now, std::nullopt, ""};
        return true;
    }
    if (it == records_.end() || it->second.state != from) return false;
    it->second.state = to;
    return true;
}

bool memory_idempotency_store::do_fence(const std::string& resource, std::int64_t token) {
    const std::lock_guard lock(mutex_);
    const auto [it, inserted] = fences_.try_emplace(resource, token);
    if (inserted) return true;
    if (token <= it->second) return false;
    it->second = token;
    return true;
}

std::vector<claim_record> memory_idempotency_store::do_list(const std::optional<std::string>& key) {
    const std::lock_guard lock(mutex_);
    std::vector<claim_record> out;
    for (const auto& [k, r] : records_)
        if (!key || *key == k) out.push_back(r);
    return out;
}

bool memory_idempotency_store::do_reset(const std::string& key) {
    const std::lock_guard lock(mutex_);
    return records_.erase(key) > 0;
}

std::size_t memory_idempotency_store::do_purge(timestamp cutoff) {
    const std::lock_guard lock(mutex_);
    return std::erase_if(records_, [&](const auto& entry) {
        const claim_record& r = entry.second;
        return r.state != claim_state::running && r.finished_at.value_or(r.claimed_at) < cutoff;
    });
}

}  // namespace shedlock
