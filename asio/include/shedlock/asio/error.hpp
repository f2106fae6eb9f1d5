#pragma once
/// \file
/// The error codes the asynchronous operations complete with. "Held elsewhere" is never one of
/// them: async_try_lock completes with no error and an empty optional, as try_lock returns one.

#include <boost/system/error_code.hpp>

#include <exception>
#include <string>
#include <type_traits>

namespace shedlock::asio {

using boost::system::error_code;

/// What went wrong, in the terms of shedlock::retry_advice (error.hpp): whether running the
/// operation again is safe is what a caller decides on.
enum class errc {
    /// The backend failed and did not apply the request (unreachable, connection closed before
    /// it was sent, busy, rolled back): running it again is safe.
    backend_unavailable = 1,
    /// The request was sent and its answer lost or late (connection dropped, timed out): it may
    /// have been applied.
    in_doubt,
    /// The backend refused in a way a retry cannot fix (missing table, access denied, bad data).
    backend_error,
    /// A value given by the caller is wrong (configuration_error: a bad key, a duration <= 0).
    invalid_argument,
    /// The handle was already unlocked or extended (lock_state_error).
    lock_state,
    /// The backend cannot do this (unsupported_operation_error).
    unsupported,
    /// The service was shut down before the operation finished.
    shut_down,
};

const boost::system::error_category& error_category() noexcept;

inline error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), error_category()}; }

/// The code of a failure reported as an exception (storage_error by its retry advice,
/// configuration_error, lock_state_error, unsupported_operation_error); none for null.
error_code to_error_code(const std::exception_ptr& failure) noexcept;

/// The failure's own message (the backend's words), for logs and run records; "" for null.
std::string failure_message(const std::exception_ptr& failure);

}  // namespace shedlock::asio

template <>
struct boost::system::is_error_code_enum<shedlock::asio::errc> : std::true_type {};
