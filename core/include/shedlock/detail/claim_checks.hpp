#pragma once
/// \file
/// The argument checks of idempotency_store::claim() and complete(), for the other interfaces that
/// start the same operations (shedlock::asio's async_claim / async_complete). Not a user API.

#include <chrono>
#include <string>
#include <string_view>

namespace shedlock::detail {

/// Throws configuration_error naming the value unless `key` is a valid idempotency key and
/// `claim_for` is positive.
void validate_claim(std::string_view key, std::chrono::milliseconds claim_for);
/// Throws configuration_error naming the value unless `key` is valid and `result` fits
/// max_claim_result_bytes.
void validate_completion(std::string_view key, const std::string& result);

}  // namespace shedlock::detail
