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
    other,
};

/// Returns a short lowercase word for a category ("unavailable", ...).
const char* to_string(storage_category category) noexcept;

/// The backend failed. A lock attempt that fails this way counts as not acquired.
class storage_error : public error {
public:
    storage_error(storage_category category, const std::string& message)
        : error(message), category_(category) {}
    storage_category category() const noexcept { return category_; }

private:
    storage_category category_;
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
