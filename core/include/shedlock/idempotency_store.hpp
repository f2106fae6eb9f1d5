#pragma once
/// \file
/// Business-level idempotency: claims on business keys, conditional state transitions and fenced
/// writes. The third layer after scheduling and the lock (docs/idempotency.md): the only one that
/// holds when a lease ran out during a pause, a finished day is re-run by hand, or a process
/// crashed after its write but before it unlocked.

#include <shedlock/time.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock {

/// Keys and fence resources: 1..255 characters of printable UTF-8 (they fit `VARCHAR(255)`).
inline constexpr std::size_t max_claim_key_length = 255;
/// States written by transition(): 1..32 printable characters.
inline constexpr std::size_t max_claim_state_length = 32;
/// Results and failure messages kept with a claim: at most this many bytes.
inline constexpr std::size_t max_claim_result_bytes = 60'000;

/// The states claim(), complete() and fail() write. transition() may write any other state too.
namespace claim_state {
inline constexpr std::string_view running = "running";
inline constexpr std::string_view done = "done";
inline constexpr std::string_view failed = "failed";
}  // namespace claim_state

/// One stored record of a key, as listed or as found by a claim that did not succeed.
struct claim_record {
    std::string key;
    std::string state;                         ///< running, done, failed, or a transition's state
    std::string owner;                         ///< owner token of the latest claim ("" if none)
    std::optional<std::int64_t> fencing_token;  ///< the lock's token when the claim was taken under one
    std::int64_t attempt = 0;                  ///< claims taken so far (0: only transitions)
    timestamp claimed_at{};
    timestamp expires_at{};                    ///< a running claim may be taken over from then on
    std::optional<timestamp> finished_at;      ///< when completed or failed
    std::string result;                        ///< complete()'s result, or fail()'s message
};

/// A claim this process holds: the right to do the work of `key` once.
struct idempotency_claim {
    std::string key;
    std::string owner;                          ///< unique per claim; complete/fail check it
    std::int64_t attempt = 1;                   ///< 1 for the first claim, +1 per failed/expired one
    std::optional<std::int64_t> fencing_token;
    timestamp claimed_at{};
    timestamp expires_at{};
    /// The message of the last failed attempt ("" for a first attempt or after an expired one).
    std::string previous_failure;
};

enum class claim_status {
    claimed,       ///< this caller holds the claim: do the work, then complete() or fail()
    already_done,  ///< completed before: `record` says when, by whom, with what result
    in_progress,   ///< a live claim of another owner (or a transition state): `record` says whose
};

struct claim_result {
    claim_status status = claim_status::claimed;
    std::optional<idempotency_claim> claim;  ///< set iff claimed
    claim_record record;                     ///< the stored record (for claimed: as written)
};

/// How complete() / fail() went.
enum class finish_status {
    finished,    ///< the record now says done / failed
    claim_lost,  ///< the claim expired and another owner took it over (or it was reset): nothing written
};

/// Where claims, states and fences live. One record per business key
/// `{key, state, owner, fencing_token, attempt, claimed_at, expires_at, finished_at, result}`.
///
/// Atomicity: every operation that writes is ONE atomic statement or script on the backend, so
/// concurrent callers in any number of threads and processes see exactly one winner. Claim
/// times use the store's clock (the application's, as the lock providers' default).
///
/// Input: keys, resources and states are validated before any backend call; a bad value is a
/// configuration_error naming it, and nothing is written.
///
/// Failure: storage_error when the backend fails (the operation may or may not have applied).
/// A claim that fails so releases what it may have written (fail() under its own owner, on the
/// store's retry connection) and its message says how that went: only when that release fails
/// too does the key stay blocked until `claim_for` has passed.
///
/// Thread safety: implementations are safe for concurrent use.
class idempotency_store {
public:
    explicit idempotency_store(const shedlock::clock& clock);
    virtual ~idempotency_store() = default;
    idempotency_store(const idempotency_store&) = delete;
    idempotency_store& operator=(const idempotency_store&) = delete;

    /// Claims `key` for `claim_for` (> 0): succeeds when the key is new, its last attempt failed,
    /// or its running claim expired (a holder that died is taken over after `claim_for`); then
    /// attempt + 1 and a new owner. A done key gives already_done, a live claim in_progress.
    /// `fencing_token`: the lock's token when claimed under a lock (stored, shown in listings).
    [[nodiscard]] claim_result claim(const std::string& key, std::chrono::milliseconds claim_for,
                                     std::optional<std::int64_t> fencing_token = std::nullopt);
    /// Marks the claim done with `result`; claim_lost (nothing written) unless the record still
    /// belongs to this claim and is running. Safe to repeat: a record that this claim already
    /// marked done is `finished` and keeps its first result (so a retry after a lost answer is not
    /// taken for a lost claim).
    /// Server backends retry once on a new connection when the pooled one broke (a restart, a
    /// killed session, a timeout); a storage_error after that means the completion is in doubt:
    /// report it loudly, the key may be worked on again once claim_for has passed.
    [[nodiscard]] finish_status complete(const idempotency_claim& claim, const std::string& result = {});
    /// Marks the claim failed (the next claim takes it, attempt + 1); owner-checked, repeatable
    /// and retried as complete().
    [[nodiscard]] finish_status fail(const idempotency_claim& claim, const std::string& message);
    /// Sets the state of `key` to `to` iff it is `from` (seed 003's `UPDATE ... SET status =
    /// 'RUNNING' WHERE id = ? AND status = 'INIT'`); `from` "" means "no record yet" (creates it).
    /// True iff this call applied it. `from` and `to` must differ.
    [[nodiscard]] bool transition(const std::string& key, const std::string& from, const std::string& to);
    /// Accepts `token` for `resource` iff it is greater than every token accepted for it before
    /// (atomic compare-and-advance). For resources that cannot check tokens themselves.
    [[nodiscard]] bool fence(const std::string& resource, std::int64_t token);

    // Operator tools (not part of the claim protocol).

    /// Every key's record, sorted by key (bytewise).
    std::vector<claim_record> list();
    /// The record of `key`, if any.
    std::optional<claim_record> find(const std::string& key);
    /// Deletes the record of `key` so that it can be claimed again; true iff one existed. A
    /// running owner then gets claim_lost.
    bool reset(const std::string& key);
    /// Deletes records that are not running and finished (or, for transition-only records, were
    /// last written) before now - `older_than`; returns how many. A purged key can be claimed again:
    /// keep records longer than anything may re-run.
    std::size_t purge(std::chrono::milliseconds older_than);

    const shedlock::clock& clock() const noexcept { return clock_; }

private:
    /// REQUIRES: valid key, claim_for > 0. ONE atomic statement decides; a claim that did not
    /// win may read the record afterwards to describe it.
    virtual claim_result do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                                  std::optional<std::int64_t> fencing_token, const std::string& owner) = 0;
    /// REQUIRES: state is done or failed; ONE statement, applied iff owner matches and running.
    /// The owner check makes it safe to run twice: a backend retries it on a new connection when
    /// the one it used broke (claim_lost from the retry is told apart by finish()).
    virtual finish_status do_finish(const idempotency_claim& claim, std::string_view state,
                                    const std::string& result) = 0;
    virtual bool do_transition(const std::string& key, const std::string& from, const std::string& to) = 0;
    virtual bool do_fence(const std::string& resource, std::int64_t token) = 0;
    virtual std::vector<claim_record> do_list(const std::optional<std::string>& key) = 0;
    virtual bool do_reset(const std::string& key) = 0;
    virtual std::size_t do_purge(timestamp cutoff) = 0;

    /// After a claim whose answer was lost (it may have been written under `owner`): fail() on
    /// that owner, so the key is not blocked for claim_for; owner-checked, so only a claim of this
    /// call is touched. Returns what happened, for the caller's message.
    std::string release_unanswered_claim(const std::string& key, const std::string& owner);
    /// do_finish, and on claim_lost a read of the record: finished when it already says `state`
    /// under this claim's owner (an earlier attempt of this call was applied).
    finish_status finish(const idempotency_claim& claim, std::string_view state, const std::string& result);

    const shedlock::clock& clock_;
};

/// Throws configuration_error naming `key` unless it is 1..255 printable UTF-8 characters.
/// `what` names the role in the message ("idempotency key", "fence resource").
void validate_claim_key(std::string_view key, std::string_view what = "idempotency key");

const char* to_string(claim_status status) noexcept;

}  // namespace shedlock
