#pragma once
// async_try_lock with the failure as an exception: `void(std::exception_ptr,
// std::optional<lock_handle>)`, so that use_awaitable rethrows the backend's storage_error and
// its own words reach the run record (async_try_lock's error_code keeps only the category).
#include <shedlock/asio/detail/deliver.hpp>
#include <shedlock/asio/lock_handle.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/lease_timing.hpp>
#include <shedlock/owner_token.hpp>

#include <boost/asio/async_result.hpp>

namespace shedlock::asio::detail {

template <typename Token>
auto async_try_lock_rethrowing(lock_service& service, const lock_configuration& config, Token&& token) {
    auto initiation = [&service](auto handler, const lock_configuration& config) {
        auto ex = completion_executor(handler, service.get_executor());
        service.start_try_lock(config, make_owner_token(),
                               [&service, ex, config, h = std::move(handler)](std::exception_ptr failure,
                                                                              std::optional<lease> granted) mutable {
                                   std::optional<lock_handle> handle;
                                   if (granted) {
                                       stamp_acquired(*granted, config, service.clock());
                                       handle.emplace(service, std::move(*granted));
                                   }
                                   deliver(ex, std::move(h), failure, std::move(handle));
                               });
    };
    return boost::asio::async_initiate<Token, void(std::exception_ptr, std::optional<lock_handle>)>(
        std::move(initiation), token, config);
}

}  // namespace shedlock::asio::detail
