#pragma once
// shedlock claims: the idempotency keys of a backend (docs/idempotency.md), and resetting one.

#include <string>

namespace shedlock::cli {

struct claims_options {
    std::string provider;
    std::string config;
    bool json = false;
    std::string key;  ///< reset KEY
    bool force = false;
};

/// Lists the claims; the process exit status. Throws missing_option without a provider.
int list_claims_command(claims_options options);

/// Resets one key (only with force); the process exit status.
int reset_claim_command(claims_options options);

}  // namespace shedlock::cli
