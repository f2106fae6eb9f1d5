#include "redis_test_support.hpp"

#include <hiredis/hiredis.h>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace shedlock::test {

std::string required_env(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0')
        FAIL(name << " is not set; start the test server with `eval \"$(providers/redis/server.sh start /tmp/shedlock-redis)\"` "
                     "or run scripts/test.sh");
    return value;
}

providers::redis_options redis_test_options(const char* variable) {
    return providers::redis_options_from_uri(parse_provider_uri(required_env(variable)));
}

raw_redis::raw_redis(const providers::redis_options& options)
    : context_(redisConnect(options.host.c_str(), options.port)) {
    if (context_ == nullptr || context_->err != 0) {
        redisFree(context_);  // the destructor does not run for a constructor that throws
        throw std::runtime_error("raw_redis: cannot connect to the test server");
    }
    if (options.password) {
        if (options.user.empty()) text({"AUTH", *options.password});
        else text({"AUTH", options.user, *options.password});
    }
    text({"SELECT", std::to_string(options.db)});
}

raw_redis::~raw_redis() { redisFree(context_); }

namespace {

redisReply* send(redisContext* context, const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lengths.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (reply == nullptr) throw std::runtime_error("raw_redis: connection failed");
    return reply;
}

}  // namespace

std::vector<std::string> raw_redis::strings(const std::vector<std::string>& args) {
    auto* reply = send(context_, args);
    std::vector<std::string> out;
    if (reply->type == REDIS_REPLY_ARRAY)
        for (std::size_t i = 0; i < reply->elements; ++i)
            if (reply->element[i]->str != nullptr) out.emplace_back(reply->element[i]->str, reply->element[i]->len);
    freeReplyObject(reply);
    return out;
}

std::string raw_redis::text(const std::vector<std::string>& args) {
    auto* reply = send(context_, args);
    std::string out;
    if (reply->type == REDIS_REPLY_INTEGER) out = std::to_string(reply->integer);
    else if (reply->type == REDIS_REPLY_NIL) out = "(nil)";
    else if (reply->str != nullptr) out.assign(reply->str, reply->len);
    freeReplyObject(reply);
    return out;
}

long long raw_redis::integer(const std::vector<std::string>& args) {
    const std::string reply = text(args);
    try {
        return std::stoll(reply);
    } catch (const std::exception&) {
        throw std::runtime_error("raw_redis: expected an integer reply, got \"" + reply + "\"");
    }
}

std::string unique_prefix(const std::string& base) {
    static const auto start = std::chrono::steady_clock::now().time_since_epoch().count() % 1000000;
    return base + "-" + std::to_string(::getpid()) + "-" + std::to_string(start);
}

}  // namespace shedlock::test
