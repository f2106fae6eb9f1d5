#pragma once
// The Lua scripts of the Redis idempotency store: one script per operation.

#include "redis_scripts.hpp"

#include <string_view>

namespace shedlock::providers::detail {

/// The source of one of the idempotency scripts (redis_script::claim ... purge); empty otherwise.
std::string_view claim_script_source(redis_script script);

}  // namespace shedlock::providers::detail
