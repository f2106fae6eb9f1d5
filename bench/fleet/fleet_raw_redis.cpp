// The Redis raw floor: the provider's acquire and unlock scripts (loaded from its own source)
// with the keys and arguments the provider builds (redis_lock_calls), by EVALSHA through hiredis
// on one connection per decider.
#include "fleet_deciders.hpp"
#include "../redis_raw.hpp"
#include "redis_keys.hpp"
#include "redis_lock_calls.hpp"

#include <shedlock/provider_uri.hpp>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace shedlock::bench::fleet {

namespace {

namespace detail = shedlock::providers::detail;

class raw_redis_decider : public decider {
public:
    raw_redis_decider(const providers::redis_options& options, const decider_setup& setup, int number)
        : connection_(redis_connect(options)), keys_(options), owner_(fleet_owner("raw", number)),
          at_most_(setup.at_most), hold_(setup.hold) {
        acquire_sha_ = redis_load(connection_.get(), detail::redis_script::acquire);
        unlock_sha_ = redis_load(connection_.get(), detail::redis_script::unlock);
    }

    bool try_acquire(const std::string& name) override {
        const lock_configuration config(name, at_most_, hold_);
        const timestamp now = shedlock::system_clock::instance().now();
        const std::int64_t token = evalsha(acquire_sha_, detail::acquire_call(keys_, true, config, owner_));
        held_ = detail::acquired_lease(config, owner_, now, token, true);
        taken_at_ = std::chrono::steady_clock::now();
        return held_.has_value();
    }

    void release() override {
        const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - taken_at_);
        const auto remaining = std::max(std::chrono::milliseconds{0}, hold_ - elapsed);
        evalsha(unlock_sha_, detail::unlock_call(keys_, *held_, remaining, false));
        held_.reset();
    }

private:
    /// EVALSHA of one prepared call; its integer reply.
    std::int64_t evalsha(const std::string& sha, const detail::lock_script_call& call) {
        std::vector<std::string> argv{"EVALSHA", sha, std::to_string(call.keys.size())};
        argv.insert(argv.end(), call.keys.begin(), call.keys.end());
        argv.insert(argv.end(), call.args.begin(), call.args.end());
        std::vector<const char*> pointers;
        std::vector<size_t> lengths;
        for (const auto& a : argv) pointers.push_back(a.data()), lengths.push_back(a.size());
        auto* reply = static_cast<redisReply*>(
            redisCommandArgv(connection_.get(), static_cast<int>(argv.size()), pointers.data(), lengths.data()));
        if (reply == nullptr || reply->type != REDIS_REPLY_INTEGER) {
            if (reply) freeReplyObject(reply);
            throw std::runtime_error("raw floor: EVALSHA did not answer an integer");
        }
        const std::int64_t value = reply->integer;
        freeReplyObject(reply);
        return value;
    }

    std::shared_ptr<redisContext> connection_;
    detail::redis_keys keys_;
    std::string owner_, acquire_sha_, unlock_sha_;
    std::chrono::milliseconds at_most_, hold_;
    std::optional<lease> held_;
    std::chrono::steady_clock::time_point taken_at_{};
};

}  // namespace

decider_factory raw_redis_deciders(const decider_setup& setup) {
    auto options = providers::redis_options::from_uri(parse_provider_uri(setup.uri));
    options.prefix = setup.redis_prefix;
    auto count = std::make_shared<std::atomic<int>>(0);
    return [options, setup, count] { return std::make_unique<raw_redis_decider>(options, setup, ++*count); };
}

}  // namespace shedlock::bench::fleet
