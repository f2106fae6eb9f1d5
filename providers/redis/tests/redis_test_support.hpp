#pragma once
// Shared by the Redis tests: the test server's options, and a raw hiredis client for looking at
// (and breaking) keys behind the provider's back.

#include <shedlock/providers/redis_lock_provider.hpp>

#include <chrono>
#include <string>
#include <vector>

struct redisContext;

namespace shedlock::test {

/// Options from $<variable> (default SHEDLOCK_TEST_REDIS_URI); fails the test with a clear
/// message when it is unset (providers/redis/server.sh start prints it).
providers::redis_options redis_test_options(const char* variable = "SHEDLOCK_TEST_REDIS_URI");

/// $name, or a Catch2 failure naming the variable and the script that sets it.
std::string required_env(const char* name);

/// A plain hiredis connection to the test server.
class raw_redis {
public:
    explicit raw_redis(const providers::redis_options& options);
    ~raw_redis();
    raw_redis(const raw_redis&) = delete;
    raw_redis& operator=(const raw_redis&) = delete;

    /// The reply as text: a string, status or error ("ERR ..."), an integer in decimal, "(nil)".
    std::string text(const std::vector<std::string>& args);
    /// The string elements of an array reply (empty for any other reply).
    std::vector<std::string> strings(const std::vector<std::string>& args);
    /// An integer reply (throws std::runtime_error otherwise).
    long long integer(const std::vector<std::string>& args);

private:
    redisContext* context_;
};

/// A prefix unique to this process, so runs never see each other's keys.
std::string unique_prefix(const std::string& base);

}  // namespace shedlock::test
