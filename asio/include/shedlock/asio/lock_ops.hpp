#pragma once
/// \file
/// async_try_lock: the asynchronous face of lock_provider::try_lock, with any Asio completion
/// token (a callback, use_future, use_awaitable, redirect_error, bind_executor(strand, ...)).

#include <shedlock/asio/detail/deliver.hpp>
#include <shedlock/asio/error.hpp>
#include <shedlock/asio/lock_handle.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lease_timing.hpp>
#include <shedlock/owner_token.hpp>

#include <boost/asio/async_result.hpp>

#include <optional>

namespace shedlock::asio {

/// Acquires `config.name()` for `config.lock_at_most_for()`. Completes with
/// `void(error_code, std::optional<lock_handle>)`: a handle when acquired; no error and an empty
/// optional when the lock is held elsewhere; an error (errc, error.hpp) when the backend failed,
/// in which case the lock counts as not acquired. Never waits for the lock to become free and
/// never blocks the calling thread; the handler runs on its associated executor (the service's
/// when it has none).
template <typename Token>
auto async_try_lock(lock_service& service, const lock_configuration& config, Token&& token) {
    auto initiation = [&service](auto handler, const lock_configuration& config) {
        auto ex = detail::completion_executor(handler, service.get_executor());
        service.start_try_lock(config, make_owner_token(),
                               [&service, keep = service.weak_from_this().lock(), ex, config,
                                h = std::move(handler)](std::exception_ptr failure, std::optional<lease> granted) mutable {
                                   std::optional<lock_handle> handle;
                                   if (granted) {
                                       stamp_acquired(*granted, config, service.clock());
                                       handle.emplace(service, std::move(*granted));
                                   }
                                   detail::deliver(ex, std::move(h), to_error_code(failure), std::move(handle));
                               });
    };
    return boost::asio::async_initiate<Token, void(error_code, std::optional<lock_handle>)>(std::move(initiation),
                                                                                             token, config);
}

}  // namespace shedlock::asio
