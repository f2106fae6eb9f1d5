#pragma once
/// \file
/// The one exception tree of shedlock. Contention is never an exception:
/// `lock_provider::try_lock` returns an empty result when somebody else holds the lock.

#include <stdexcept>
#include <string>

namespace shedlock {

/// Root of every exception this library throws.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A value given by the user is wrong (bad duration, name, URI, table, ...).
/// Thrown when the configuration is built, never at the first firing. The message
/// names the offending value and how to fix it.
class configuration_error : public error {
public:
    using error::error;
};

/// Provider-neutral reason for a storage failure.
enum class storage_category {
    unavailable,     ///< server unreachable, connection lost, timeout
    missing_schema,  ///< lock table (or a column) does not exist
    access_denied,   ///< authentication or permission failure
    busy,            ///< the backend stayed locked/busy past the deadline
    /// The server rolled the statement back to resolve a conflict with another transaction
    /// (deadlock victim, serialization failure): it did nothing, and running it again is safe.
    conflict,
    invalid_data,    ///< the backend holds data of an unexpected shape
    /// The backend refuses this setup, and no retry mends it: a setting on the server or in the
    /// URI (a pooler refusing libpq's options, a session DateStyle the provider cannot read,
    /// named statements clashing on a pooler's shared server connection). The CLI exits 78.
    misconfigured,
    other,
};

/// Returns a short lowercase word for a category ("unavailable", ...).
const char* to_string(storage_category category) noexcept;

/// Whether running a failed request again can help, and whether it may then run twice (as
/// libpqxx's in_doubt_error tells a lost COMMIT from a refused one).
enum class retry_advice {
    /// The request never reached the server (connect failed, the connection had closed while it
    /// idled), or the server refused or rolled it back without applying it (busy, deadlock
    /// victim, read-only replica): running it again is safe, even for a non-idempotent write.
    safe,
    /// The request was sent and its answer lost (connection dropped or timed out mid-request): it
    /// may have been applied. Retrying runs it twice if it was; a caller that cannot tolerate
    /// that (a completion, an append) reports it instead. Messages say "may have been applied".
    in_doubt,
    /// Retrying will not help until somebody acts: missing table, refused credentials, bad data.
    permanent,
};

/// "safe to retry", "in doubt", "permanent".
const char* to_string(retry_advice advice) noexcept;

/// The advice a category implies when the backend cannot tell more: busy and conflict are safe
/// (nothing was applied), unavailable is in doubt (a connection lost, maybe mid-request), the
/// others are permanent.
retry_advice default_retry_advice(storage_category category) noexcept;

/// The clause an in-doubt storage_error's message carries, so that logs and the CLI say it.
inline constexpr const char* may_have_been_applied =
    "the request was sent and its answer lost: it may have been applied";

/// The backend failed. A lock attempt that fails this way counts as not acquired.
class storage_error : public error {
public:
    /// The category's default advice (default_retry_advice).
    storage_error(storage_category category, const std::string& message)
        : storage_error(category, default_retry_advice(category), message) {}
    /// Advice from a backend that knows whether the request was sent or applied.
    storage_error(storage_category category, retry_advice advice, const std::string& message)
        : error(message), category_(category), advice_(advice) {}
    storage_category category() const noexcept { return category_; }
    /// Whether running the request again is safe (see retry_advice).
    retry_advice advice() const noexcept { return advice_; }

private:
    storage_category category_;
    retry_advice advice_;
};

/// A lock handle was used in a state that does not allow it (unlock after unlock,
/// extend twice on one handle, ...). Always a programming error of the caller.
class lock_state_error : public error {
public:
    using error::error;
};

/// The provider cannot do what was asked (e.g. fencing on a table without the column).
class unsupported_operation_error : public error {
public:
    using error::error;
};

}  // namespace shedlock
