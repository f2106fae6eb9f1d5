#pragma once
// The raw hiredis floor of the Redis benchmarks (redis_cycles, claim_cycles): one connection,
// commands by argv, the provider's scripts loaded from their own source.

#include "redis_scripts.hpp"

#include <shedlock/providers/redis_lock_provider.hpp>

#include <hiredis/hiredis.h>

#include <initializer_list>
#include <memory>
#include <string>

namespace shedlock::bench {

/// Runs one command (at most 16 arguments); throws on no reply or an error reply. The caller
/// frees the reply.
redisReply* redis_call(redisContext* c, std::initializer_list<std::string> args);

/// SCRIPT LOAD of the provider's script `script`; returns its SHA1.
std::string redis_load(redisContext* c, providers::detail::redis_script script);

/// A raw hiredis connection, authenticated and on the provider's database.
std::shared_ptr<redisContext> redis_connect(const providers::redis_options& options);

}  // namespace shedlock::bench
