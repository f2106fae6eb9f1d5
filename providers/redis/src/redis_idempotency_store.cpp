#include "redis_errors.hpp"
#include "redis_keys.hpp"
#include "redis_pool.hpp"
#include "redis_session.hpp"
#include "redis_scripts.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_idempotency_store.hpp>

#include <algorithm>

namespace shedlock::providers {
namespace {

std::string claims_base(const redis_options& options) {
    const std::string env = detail::effective_env(options);
    return detail::effective_prefix(options) + ":claims:" + (env.empty() ? "" : env + ":");
}

std::string ms_text(timestamp t) { return std::to_string(t.time_since_epoch().count()); }

timestamp ms_time(const std::string& text) {
    try {
        return timestamp{std::chrono::milliseconds{std::stoll(text)}};
    } catch (const std::exception&) {
        throw storage_error(storage_category::invalid_data, "claim record holds time \"" + text + "\"; not written by shedlock");
    }
}

std::string element_text(const redisReply& reply, std::size_t i) {
    if (i >= reply.elements || reply.element[i]->type != REDIS_REPLY_STRING) return {};
    return {reply.element[i]->str, reply.element[i]->len};
}

/// state, owner, token, attempt, claimed_at, expires_at, finished_at, result from `first` on.
claim_record record_from(const std::string& key, const redisReply& reply, std::size_t first) {
    claim_record r;
    r.key = key;
    r.state = element_text(reply, first);
    r.owner = element_text(reply, first + 1);
    if (const auto token = element_text(reply, first + 2); !token.empty()) r.fencing_token = std::stoll(token);
    r.attempt = std::stoll("0" + element_text(reply, first + 3));
    r.claimed_at = ms_time(element_text(reply, first + 4));
    r.expires_at = ms_time(element_text(reply, first + 5));
    if (const auto finished = element_text(reply, first + 6); !finished.empty()) r.finished_at = ms_time(finished);
    r.result = element_text(reply, first + 7);
    return r;
}

class redis_idempotency_store final : public idempotency_store {
public:
    redis_idempotency_store(const redis_options& options, std::shared_ptr<detail::redis_pool> pool, const shedlock::clock& clock)
        : idempotency_store(clock), base_(claims_base(options)), index_(base_ + "index"), pool_(std::move(pool)) {}

private:
    std::string record_key(const std::string& key) const { return base_ + "{" + key + "}"; }
    std::string fence_key(const std::string& resource) const { return base_ + "fence:{" + resource + "}"; }

    detail::reply_ptr script(detail::redis_script which, const std::vector<std::string_view>& keys,
                             const std::vector<std::string_view>& args) {
        auto connection = pool_->borrow();
        return scripts_.run(*connection, which, keys, args);
    }
    bool script_says_yes(detail::redis_script which, const std::vector<std::string_view>& keys,
                         const std::vector<std::string_view>& args) {
        return script(which, keys, args)->integer > 0;
    }

    claim_result do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                          std::optional<std::int64_t> fencing_token, const std::string& owner) override {
        const auto now = clock().now();
        const auto expires = now + claim_for;
        const std::string record = record_key(key), token = fencing_token ? std::to_string(*fencing_token) : "";
        const std::string now_text = ms_text(now), expires_text = ms_text(expires);
        const auto reply = script(detail::redis_script::claim, {record, index_}, {owner, token, now_text, expires_text, key});
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 3)
            throw storage_error(storage_category::invalid_data, "the claim script answered an unexpected reply");
        if (element_text(*reply, 0) == "1") {
            const auto attempt = std::stoll(element_text(*reply, 1));
            const auto previous = element_text(*reply, 2);
            claim_record r{key, std::string(claim_state::running), owner, fencing_token, attempt, now, expires,
                           std::nullopt, previous};
            return {claim_status::claimed, idempotency_claim{key, owner, attempt, fencing_token, now, expires, previous},
                    std::move(r)};
        }
        auto r = record_from(key, *reply, 1);
        const auto status = r.state == claim_state::done ? claim_status::already_done : claim_status::in_progress;
        return {status, std::nullopt, std::move(r)};
    }

    finish_status do_finish(const idempotency_claim& claim, std::string_view state, const std::string& result) override {
        const std::string record = record_key(claim.key), now = ms_text(clock().now());
        const std::vector<std::string_view> keys{record}, args{claim.owner, state, now, result};
        // Owner-checked, so safe twice: the pooled connection idled through the whole task and
        // may have been killed or timed out; losing the completion lets the work run again.
        const auto reply = pool_->run_retrying_in_doubt(
            [&](detail::redis_connection& c) { return scripts_.run(c, detail::redis_script::finish, keys, args); });
        return reply->integer > 0 ? finish_status::finished : finish_status::claim_lost;
    }

    bool do_transition(const std::string& key, const std::string& from, const std::string& to) override {
        const std::string record = record_key(key), now = ms_text(clock().now());
        return script_says_yes(detail::redis_script::transition, {record, index_}, {from, to, now, key});
    }

    bool do_fence(const std::string& resource, std::int64_t token) override {
        const std::string fence = fence_key(resource), text = std::to_string(token);
        return script_says_yes(detail::redis_script::fence, {fence}, {text});
    }

    std::vector<claim_record> do_list(const std::optional<std::string>& key) override {
        auto connection = pool_->borrow();
        std::vector<std::string> keys;
        if (key) {
            keys.push_back(*key);
        } else {
            const auto members = connection->checked({"SMEMBERS", index_}, "SMEMBERS (claims index)");
            for (std::size_t i = 0; i < members->elements; ++i) keys.push_back(element_text(*members, i));
            std::sort(keys.begin(), keys.end());
        }
        std::vector<std::string> record_keys;
        record_keys.reserve(keys.size());  // the views below point into it
        std::vector<std::vector<std::string_view>> commands;
        for (const auto& k : keys)
            commands.push_back({"HMGET", record_keys.emplace_back(record_key(k)), "state", "owner", "token", "attempt",
                                "claimed_at", "expires_at", "finished_at", "result"});
        if (commands.empty()) return {};
        const auto replies = connection->pipeline(commands, "HMGET (claim records)");
        std::vector<claim_record> out;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const auto& reply = *replies[i];
            if (reply.type == REDIS_REPLY_ERROR)
                throw detail::reply_error({reply.str, reply.len}, "HMGET (claim records)", connection->where());
            if (reply.type != REDIS_REPLY_ARRAY || element_text(reply, 0).empty()) continue;  // reset meanwhile
            out.push_back(record_from(keys[i], reply, 0));
        }
        return out;
    }

    bool do_reset(const std::string& key) override {
        const std::string record = record_key(key);
        return script_says_yes(detail::redis_script::reset, {record, index_}, {key});
    }

    std::size_t do_purge(timestamp cutoff) override {
        std::vector<std::string> keys;
        {
            auto connection = pool_->borrow();
            const auto members = connection->checked({"SMEMBERS", index_}, "SMEMBERS (claims index)");
            for (std::size_t i = 0; i < members->elements; ++i) keys.push_back(element_text(*members, i));
        }
        const std::string cut = ms_text(cutoff);
        std::size_t purged = 0;
        for (const auto& key : keys) {
            const std::string record = record_key(key);
            if (script_says_yes(detail::redis_script::purge, {record, index_}, {cut, key})) ++purged;
        }
        return purged;
    }

    const std::string base_;
    const std::string index_;
    std::shared_ptr<detail::redis_pool> pool_;  ///< the session's (or its own)
    detail::redis_scripts scripts_;
};

}  // namespace

std::unique_ptr<idempotency_store> make_redis_idempotency_store(const redis_options& options,
                                                                const shedlock::clock& clock) {
    detail::validate_redis_options(options);
    return std::make_unique<redis_idempotency_store>(options, std::make_shared<detail::redis_pool>(options), clock);
}

std::unique_ptr<idempotency_store> detail::make_redis_idempotency_store(const redis_options& options,
                                                                        std::shared_ptr<redis_pool> pool,
                                                                        const shedlock::clock& clock) {
    return std::make_unique<redis_idempotency_store>(options, std::move(pool), clock);
}

}  // namespace shedlock::providers
