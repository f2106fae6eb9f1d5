#include "redis_cluster_connection.hpp"

#include "redis_cluster_redirect.hpp"
#include "redis_errors.hpp"

namespace shedlock::providers::detail {

std::string describe_cluster(const redis_cluster_options& options) {
    std::string seeds;
    for (const auto& s : options.seeds) seeds += (seeds.empty() ? "" : ",") + s.host + ":" + std::to_string(s.port);
    return "Redis Cluster at " + seeds;
}

redis_cluster_connection::redis_cluster_connection(std::shared_ptr<redis_cluster_state> state)
    : redis_connection(describe_cluster(state->options())), state_(std::move(state)) {}

std::vector<reply_ptr> redis_cluster_connection::pipeline(const std::vector<std::vector<std::string_view>>& commands,
                                                          const char* what) {
    // One command at a time: the commands of one pipeline may live on different primaries.
    std::vector<reply_ptr> replies;
    replies.reserve(commands.size());
    for (const auto& command : commands) replies.push_back(route(command, what));
    return replies;
}

cluster_address redis_cluster_connection::keyless_target() {
    if (last_) return *last_;
    const auto primaries = state_->primaries();
    return primaries.front().address;
}

reply_ptr redis_cluster_connection::route(const std::vector<std::string_view>& command, const char* what) {
    const auto key = routing_key(command);
    if (!key) return send(keyless_target(), command, what, false);
    const std::uint16_t slot = key_slot(*key);
    cluster_address target = state_->owner_of(slot);
    bool asking = false;
    const int bound = state_->options().max_redirects;
    for (int hop = 0;; ++hop) {
        reply_ptr reply;
        try {
            reply = send(target, command, what, asking);
        } catch (const storage_error& e) {
            // Not sent (the node is gone): when the re-read map names another primary for the
            // slot (a promoted replica), send it there. In doubt: never again (the rules of
            // redis_connection); the caller reports it.
            if (e.category() != storage_category::unavailable || e.advice() != retry_advice::safe || hop >= bound)
                throw;
            const auto promoted = state_->owner_after_failure(slot);
            if (promoted == target) throw;
            target = promoted;
            asking = false;
            continue;
        }
        const auto redirect = redirect_of(*reply);
        if (!redirect) {
            last_ = target;
            return reply;
        }
        if (hop >= bound) throw too_many_redirects(*reply, what, where(), bound);
        asking = false;
        switch (redirect->kind) {
        case redirect_kind::moved:
            state_->moved(redirect->slot, redirect->node);
            target = redirect->node;
            break;
        case redirect_kind::ask:  // the slot is being migrated: this key is already there
            target = redirect->node;
            asking = true;
            break;
        case redirect_kind::retry:  // TRYAGAIN, CLUSTERDOWN: nothing applied
            wait_before_retry(hop);
            state_->mark_stale();
            target = state_->owner_of(slot);
            break;
        }
    }
}

reply_ptr redis_cluster_connection::send(const cluster_address& address, const std::vector<std::string_view>& command,
                                         const char* what, bool asking) {
    try {
        redis_connection& connection = node(address);
        if (!asking) return connection.command(command, what);
        auto replies = connection.pipeline({{"ASKING"}, command}, what);
        return std::move(replies.back());
    } catch (const storage_error& e) {
        if (e.category() == storage_category::unavailable) {
            nodes_.erase(address);  // its reply stream is out of step or gone
            if (last_ == address) last_.reset();  // keyless commands: not to a dead node again
            state_->mark_stale();   // a failover may follow: re-read the map next time
        }
        throw;
    }
}

redis_connection& redis_cluster_connection::node(const cluster_address& address) {
    auto& slot = nodes_[address];
    if (slot && slot->broken()) slot.reset();
    if (!slot) {
        try {
            slot = std::make_unique<redis_connection>(state_->node_options(address));
        } catch (...) {
            nodes_.erase(address);
            throw;
        }
    }
    return *slot;
}

void redis_cluster_connection::for_each_primary(const std::function<void(redis_connection&)>& fn) {
    for (const auto& primary : state_->primaries()) fn(node(primary.address));
}

}  // namespace shedlock::providers::detail
