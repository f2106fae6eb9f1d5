#pragma once
/// \file
/// A lock provider's backend operations without a lock_handle around them: what an adapter to
/// another interface calls (shedlock::asio::pooled_lock_service runs them on a pool and hands
/// the leases to asynchronous handles). Not a user API.

#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace shedlock::detail {

struct lock_provider_access {
    static std::optional<lease> try_lock(lock_provider& p, const lock_configuration& config, const std::string& owner) {
        return p.do_try_lock(config, owner);
    }
    static void unlock(lock_provider& p, const lease& held) { p.do_unlock(held); }
    static std::optional<lease> extend(lock_provider& p, const lease& held, std::chrono::milliseconds at_most,
                                       std::chrono::milliseconds minimum_hold) {
        return p.do_extend(held, at_most, minimum_hold);
    }
};

}  // namespace shedlock::detail
