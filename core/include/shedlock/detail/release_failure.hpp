#pragma once
/// \file
/// How a release that cannot throw (started by a handle's destructor) reports its failure: to the
/// error handler when one is set, else one line on stderr. Shared by lock_provider and
/// shedlock::asio::lock_service. Not a user API.

#include <shedlock/lock_provider.hpp>

#include <exception>
#include <string>

namespace shedlock::detail {

/// Never throws: an error handler that throws is ignored.
void report_release_failure(const lock_error_handler& handler, const std::string& name, const std::exception& e) noexcept;

}  // namespace shedlock::detail
