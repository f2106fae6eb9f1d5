#include "redis_raw.hpp"

#include <stdexcept>

namespace shedlock::bench {

redisReply* redis_call(redisContext* c, std::initializer_list<std::string> args) {
    const char* argv[16];
    size_t lengths[16];
    if (args.size() > 16) throw std::invalid_argument("redis_call: more than 16 arguments");
    int n = 0;
    for (const auto& a : args) {
        argv[n] = a.data();
        lengths[n++] = a.size();
    }
    auto* reply = static_cast<redisReply*>(redisCommandArgv(c, n, argv, lengths));
    if (reply == nullptr || reply->type == REDIS_REPLY_ERROR) throw std::runtime_error("raw floor: command failed");
    return reply;
}

std::string redis_load(redisContext* c, providers::detail::redis_script script) {
    auto* reply = redis_call(c, {"SCRIPT", "LOAD", std::string(providers::detail::script_source(script))});
    std::string sha(reply->str, reply->len);
    freeReplyObject(reply);
    return sha;
}

std::shared_ptr<redisContext> redis_connect(const providers::redis_options& options) {
    std::shared_ptr<redisContext> c(redisConnect(options.host.c_str(), options.port), [](redisContext* p) {
        if (p) redisFree(p);
    });
    if (c == nullptr || c->err) throw std::runtime_error("raw floor: cannot connect");
    if (options.password) {
        if (options.user.empty()) freeReplyObject(redis_call(c.get(), {"AUTH", *options.password}));
        else freeReplyObject(redis_call(c.get(), {"AUTH", options.user, *options.password}));
    }
    freeReplyObject(redis_call(c.get(), {"SELECT", std::to_string(options.db)}));
    return c;
}

}  // namespace shedlock::bench
