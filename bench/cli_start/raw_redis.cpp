// The raw Redis floor: hiredis, AUTH and SELECT, SET NX PX to take the lock, DEL to release
// (what most hand-written Redis locks do).
#include "raw_backend.hpp"

#include <hiredis/hiredis.h>

#include <stdexcept>

namespace shedlock::bench {
namespace {

class raw_redis final : public raw_backend {
public:
    explicit raw_redis(const std::string& uri) {
        const uri_parts u = split_uri(uri, 6379);
        conn_ = redisConnect(u.host.c_str(), static_cast<int>(u.port));
        if (conn_ == nullptr || conn_->err) throw std::runtime_error("redis: cannot connect to " + u.host);
        if (!u.password.empty()) {
            if (u.user.empty()) freeReplyObject(command({"AUTH", u.password}));
            else freeReplyObject(command({"AUTH", u.user, u.password}));
        }
        if (!u.path.empty() && u.path != "0") freeReplyObject(command({"SELECT", u.path}));
    }
    ~raw_redis() override { redisFree(conn_); }

    bool acquire(const std::string& name, const std::string& owner, long at_most_ms) override {
        auto* reply = command({"SET", "raw:" + name, owner, "NX", "PX", std::to_string(at_most_ms)});
        const bool ok = reply->type == REDIS_REPLY_STATUS;
        freeReplyObject(reply);
        return ok;
    }

    void release(const std::string& name, const std::string&) override { freeReplyObject(command({"DEL", "raw:" + name})); }

private:
    redisReply* command(std::initializer_list<std::string> args) {
        const char* argv[8];
        size_t lengths[8];
        int n = 0;
        for (const auto& a : args) {
            argv[n] = a.data();
            lengths[n++] = a.size();
        }
        auto* reply = static_cast<redisReply*>(redisCommandArgv(conn_, n, argv, lengths));
        if (reply == nullptr || reply->type == REDIS_REPLY_ERROR) throw std::runtime_error("redis: command failed");
        return reply;
    }

    redisContext* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<raw_backend> open_raw_redis(const std::string& uri) { return std::make_unique<raw_redis>(uri); }

}  // namespace shedlock::bench
