#include "redis_keys.hpp"
#include "redis_lock_calls.hpp"
#include "redis_lock_listing.hpp"
#include "redis_pool.hpp"
#include "redis_scripts.hpp"
#include "redis_session.hpp"
#include "redis_topology.hpp"
#include "redis_wait_replicas.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers {
namespace {

using detail::redis_script;

/// Lock times on the lease are client-clock estimates (now + at_most); the authoritative expiry
/// is the key's TTL, counted by the Redis server.
class redis_lock_provider final : public lock_provider, public lock_inspector {
public:
    redis_lock_provider(const redis_options& options, std::shared_ptr<detail::redis_pool> pool, const shedlock::clock& clock)
        : lock_provider(clock), options_(options), keys_(options), pool_(std::move(pool)) {}

    bool supports_fencing() const override { return options_.fencing; }
    lock_inspector* inspector() noexcept override { return this; }

    std::vector<lock_record> list_locks() override {
        auto connection = pool_->borrow();
        return detail::list_redis_locks(*connection, keys_);
    }
    std::optional<timestamp> server_time() override {
        auto connection = pool_->borrow();
        return detail::redis_server_time(*connection);
    }
    timestamp lock_time_now() override { return *server_time(); }  // TTLs run on the server's clock
    std::vector<topology_note> topology() override {
        auto connection = pool_->borrow();
        auto notes = connection->topology_notes();  // a Redis Cluster's, from its router
        if (!notes.empty()) return notes;
        return detail::redis_topology(*connection, options_);
    }
    void delete_records(const std::vector<std::string>& names) override {
        auto connection = pool_->borrow();
        for (const auto& name : names) {
            const std::string lock_key = keys_.lock_key(name), fence_key = keys_.fence_key(name);
            connection->checked({"DEL", lock_key, fence_key}, "DEL");
        }
    }

private:
    void do_force_release(const lock_record& live, timestamp now) override { release_record(live, now); }
    std::optional<lease> do_try_lock(const lock_configuration& config, const std::string& owner) override;
    void do_unlock(const lease& held) override;
    std::optional<lease> do_extend(const lease& held, std::chrono::milliseconds at_most,
                                   std::chrono::milliseconds minimum_hold) override;

    /// Runs one lock script; its integer answer.
    std::int64_t run(const detail::lock_script_call& call);
    /// The extend script, then WAIT (wait_replicas) on the same connection when it extended.
    std::int64_t extend_on_replicas(const detail::lock_script_call& call);
    /// The acquire script, then WAIT (wait_replicas) on the same connection.
    std::int64_t acquire_on_replicas(const detail::lock_script_call& call, const lock_configuration& config,
                                     const std::string& owner, timestamp now);
    /// After WAIT itself failed: runs `release` on a new connection and throws (unavailable).
    [[noreturn]] void release_unconfirmed(const detail::lock_script_call& release, const storage_error& why);

    const redis_options options_;
    const detail::redis_keys keys_;
    std::shared_ptr<detail::redis_pool> pool_;  ///< the session's (or its own)
    detail::redis_scripts scripts_;
};

std::int64_t redis_lock_provider::run(const detail::lock_script_call& call) {
    const auto keys = call.key_views();
    const auto args = call.arg_views();
    const auto run_once = [&](detail::redis_connection& connection) {
        auto reply = scripts_.run(connection, call.script, keys, args);
        return detail::lock_script_result(*reply, connection.where(), call.lock_key);
    };
    // A script that was never sent (its connection closed while it idled in the pool: a restart,
    // CLIENT KILL, an idle timeout) is run once more on a new connection, the acquire included.
    // Unlock and extend are owner-checked, so running one twice is harmless: they are also run
    // again when in doubt on a connection that had idled.
    if (call.script == redis_script::acquire) return pool_->run_retrying_safe(run_once);
    return pool_->run_retrying_in_doubt(run_once);
}

std::int64_t redis_lock_provider::acquire_on_replicas(const detail::lock_script_call& call,
                                                     const lock_configuration& config, const std::string& owner,
                                                     timestamp now) {
    const auto keys = call.key_views();
    const auto args = call.arg_views();
    std::optional<detail::lock_script_call> release;
    try {
        return pool_->run_retrying_safe([&](detail::redis_connection& connection) {
            auto reply = scripts_.run(connection, call.script, keys, args);
            const std::int64_t token = detail::lock_script_result(*reply, connection.where(), call.lock_key);
            if (token < 0) return token;  // held elsewhere: nothing to wait for
            const auto taken = detail::acquired_lease(config, owner, now, token, options_.fencing);
            release = detail::unlock_call(keys_, *taken, std::chrono::milliseconds(0), false);
            detail::confirm_on_replicas(connection, options_, scripts_, *release);
            return token;
        });
    } catch (const detail::wait_unanswered& e) {
        release_unconfirmed(*release, e);
    }
}

// Without it the lock stayed taken, by nobody, for lock_at_most_for (every other instance
// skipped the task meanwhile) although the caller was told it was not acquired.
void redis_lock_provider::release_unconfirmed(const detail::lock_script_call& release, const storage_error& why) {
    const std::string head = std::string("WAIT after the acquisition of \"") + release.lock_key + "\" failed (" + why.what() + ")";
    try {
        run(release);
    } catch (const storage_error& e) {
        throw storage_error(storage_category::unavailable, retry_advice::in_doubt,
                            head + "; releasing it failed too (" + e.what() +
                                "), so the key expires after lock_at_most_for; " + may_have_been_applied);
    }
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        head + ", so it was released and is not held");
}

std::int64_t redis_lock_provider::extend_on_replicas(const detail::lock_script_call& call) {
    const auto keys = call.key_views();
    const auto args = call.arg_views();
    return pool_->run_retrying_in_doubt([&](detail::redis_connection& connection) {
        auto reply = scripts_.run(connection, call.script, keys, args);
        const std::int64_t result = detail::lock_script_result(*reply, connection.where(), call.lock_key);
        if (result == 1) detail::confirm_extension_on_replicas(connection, options_, call.lock_key);
        return result;
    });
}

std::optional<lease> redis_lock_provider::do_try_lock(const lock_configuration& config, const std::string& owner) {
    const timestamp now = clock().now();
    const auto call = detail::acquire_call(keys_, options_.fencing, config, owner);
    const std::int64_t token = options_.wait_replicas > 0 ? acquire_on_replicas(call, config, owner, now) : run(call);
    return detail::acquired_lease(config, owner, now, token, options_.fencing);
}

void redis_lock_provider::do_unlock(const lease& held) {
    // The remaining minimum hold, measured on the client's monotonic clock, becomes a relative
    // TTL (never longer than the key's own, unless the hold outlasts the lease); 0 deletes the key.
    // A release re-sent after a timeout is then as harmless as one sent once.
    run(detail::unlock_call(keys_, held, remaining_minimum_hold(held), minimum_hold_outlasts_lease(held)));
}

std::optional<lease> redis_lock_provider::do_extend(const lease& held, std::chrono::milliseconds at_most,
                                                    std::chrono::milliseconds minimum_hold) {
    const timestamp now = clock().now();
    const auto call = detail::extend_call(keys_, held, at_most);
    const std::int64_t result = options_.wait_replicas > 0 ? extend_on_replicas(call) : run(call);
    return detail::extended_lease(held, now, at_most, minimum_hold, result);
}

}  // namespace

std::unique_ptr<lock_provider> make_redis_lock_provider(const redis_options& options, const shedlock::clock& clock) {
    detail::validate_redis_options(options);
    return std::make_unique<redis_lock_provider>(options, std::make_shared<detail::redis_pool>(options), clock);
}

std::unique_ptr<lock_provider> detail::make_redis_lock_provider(const redis_options& options,
                                                                std::shared_ptr<redis_pool> pool,
                                                                const shedlock::clock& clock) {
    return std::make_unique<redis_lock_provider>(options, std::move(pool), clock);
}

}  // namespace shedlock::providers
