#pragma once
// Test-only: an SQL lock provider built around a planted_dialect. Opening one needs a backend's
// connection factory, which no provider exposes publicly yet, so the planted_<backend>.cpp
// files include the providers' private connection headers (see docs/chaos.md).

#include "planted_dialect.hpp"

#include <shedlock/lock_provider.hpp>
#include <shedlock/provider_uri.hpp>

#include <memory>

namespace shedlock::chaos {

/// sqlite:, postgresql:// or mysql:// (as the build has them) with `bug` planted. Throws
/// configuration_error for another scheme and the providers' own errors otherwise.
std::unique_ptr<lock_provider> open_planted_provider(const provider_uri& uri, planted_bug bug);

std::unique_ptr<lock_provider> open_planted_sqlite(const provider_uri& uri, planted_bug bug);
std::unique_ptr<lock_provider> open_planted_postgres(const provider_uri& uri, planted_bug bug);
std::unique_ptr<lock_provider> open_planted_mysql(const provider_uri& uri, planted_bug bug);

}  // namespace shedlock::chaos
