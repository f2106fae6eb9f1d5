#pragma once
// Which interface the conformance cases drive: the backend's blocking lock_provider, or its
// asynchronous lock_service through the public token API (async_try_lock, lock_handle::
// async_unlock / async_extend), with use_awaitable or with plain callbacks. Chosen per run by
// SHEDLOCK_CONFORMANCE_INTERFACE, so that one program runs the same cases through each.

#include "conformance.hpp"

#include <memory>
#include <string>

namespace shedlock::conformance {

enum class interface_kind { blocking, awaitable, callbacks };

/// SHEDLOCK_CONFORMANCE_INTERFACE: unset, "" or "blocking", "awaitable", "callbacks". Throws
/// configuration_error naming any other value and the accepted ones.
interface_kind interface_from_env();

std::string to_string(interface_kind kind);

/// `inner` itself for the blocking interface; otherwise a backend whose providers run every
/// lock call through `inner`'s asynchronous service (backend::make_async_service) in `kind`.
std::unique_ptr<backend> with_interface(std::unique_ptr<backend> inner, interface_kind kind);

}  // namespace shedlock::conformance
