#pragma once
// An idempotency store whose complete()/fail() behave as a server backend's do when a connection
// breaks, over a real memory store (claims, listings and everything else are the memory store's).
// Header-only: the core and scheduler test programs both link shedlock::memory.

#include <shedlock/error.hpp>
#include <shedlock/memory_idempotency_store.hpp>

namespace shedlock::test {

class flaky_finish_store final : public idempotency_store {
public:
    enum class mode {
        /// The write is applied, and then the store answers claim_lost, as a retry on a new
        /// connection does when the first attempt was applied but its answer was lost.
        applied_then_lost,
        /// Every complete()/fail() throws storage_error(unavailable): the server stays away.
        always_fails,
    };

    flaky_finish_store(const shedlock::clock& clock, mode m) : idempotency_store(clock), inner_(clock), mode_(m) {}

    memory_idempotency_store& inner() noexcept { return inner_; }

private:
    claim_result do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                          std::optional<std::int64_t> fencing_token, const std::string&) override {
        return inner_.claim(key, claim_for, fencing_token);
    }
    finish_status do_finish(const idempotency_claim& claim, std::string_view state, const std::string& result) override {
        if (mode_ == mode::always_fails)
            throw storage_error(storage_category::unavailable, "claims server at 127.0.0.1:1 closed the connection");
        (void)(state == claim_state::done ? inner_.complete(claim, result) : inner_.fail(claim, result));
        return finish_status::claim_lost;
    }
    bool do_transition(const std::string& key, const std::string& from, const std::string& to) override {
        return inner_.transition(key, from, to);
    }
    bool do_fence(const std::string& resource, std::int64_t token) override { return inner_.fence(resource, token); }
    std::vector<claim_record> do_list(const std::optional<std::string>& key) override {
        if (!key) return inner_.list();
        auto found = inner_.find(*key);
        return found ? std::vector<claim_record>{*found} : std::vector<claim_record>{};
    }
    bool do_reset(const std::string& key) override { return inner_.reset(key); }
    std::size_t do_purge(timestamp cutoff) override { return inner_.purge(clock().now() - cutoff); }

    memory_idempotency_store inner_;
    mode mode_;
};

}  // namespace shedlock::test
