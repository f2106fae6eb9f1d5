#pragma once
/// \file
/// The idempotency store's claim protocol as asynchronous operations (idempotency_store.hpp has
/// the semantics), and async_claim / async_complete / async_fail with any completion token.

#include <shedlock/asio/detail/deliver.hpp>
#include <shedlock/asio/error.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/idempotency_store.hpp>

#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace shedlock::asio {

/// A backend's claims as asynchronous operations. Completion, lifetime and thread safety as
/// lock_service: start_* never completes inside the call, `done` runs once on a service thread.
class claim_service {
public:
    using executor_type = boost::asio::any_io_executor;

    virtual ~claim_service() = default;
    claim_service(const claim_service&) = delete;
    claim_service& operator=(const claim_service&) = delete;

    virtual executor_type get_executor() const = 0;
    virtual std::string describe() const = 0;

    /// idempotency_store::claim (the key and claim_for are already checked).
    virtual void start_claim(std::string key, std::chrono::milliseconds claim_for,
                             std::optional<std::int64_t> fencing_token, completion<claim_result> done) = 0;
    /// idempotency_store::complete (`state` done) or fail (`state` failed), with their retry.
    virtual void start_finish(idempotency_claim claim, std::string state, std::string result,
                              completion<finish_status> done) = 0;

protected:
    claim_service() = default;
};

namespace detail {

/// The checks idempotency_store::claim makes before any backend call; empty when fine.
std::exception_ptr check_claim_arguments(const std::string& key, std::chrono::milliseconds claim_for);
/// The checks of complete() (key, the result's size) and fail() (key; a long message is cut).
std::exception_ptr check_finish_arguments(const idempotency_claim& claim, const std::string& state,
                                          const std::string& text);

template <typename Token>
auto async_finish(claim_service& service, const idempotency_claim& claim, std::string state, std::string text,
                  Token&& token) {
    if (auto bad = check_finish_arguments(claim, state, text)) std::rethrow_exception(bad);
    auto initiation = [&service](auto handler, const idempotency_claim& claim, std::string state, std::string text) {
        auto ex = completion_executor(handler, service.get_executor());
        service.start_finish(claim, std::move(state), std::move(text),
                             [ex, h = std::move(handler)](std::exception_ptr failure, finish_status status) mutable {
                                 deliver(ex, std::move(h), to_error_code(failure), status);
                             });
    };
    return boost::asio::async_initiate<Token, void(error_code, finish_status)>(std::move(initiation), token, claim,
                                                                               std::move(state), std::move(text));
}

}  // namespace detail

/// Claims `key` for `claim_for`; completes with `void(error_code, claim_result)` (claimed,
/// already_done or in_progress as idempotency_store::claim). A bad key or claim_for throws
/// configuration_error naming it from this call, before anything starts (an error code could
/// not name it).
template <typename Token>
auto async_claim(claim_service& service, const std::string& key, std::chrono::milliseconds claim_for,
                 std::optional<std::int64_t> fencing_token, Token&& token) {
    if (auto bad = detail::check_claim_arguments(key, claim_for)) std::rethrow_exception(bad);
    auto initiation = [&service](auto handler, const std::string& key, std::chrono::milliseconds claim_for,
                                 std::optional<std::int64_t> fencing_token) {
        auto ex = detail::completion_executor(handler, service.get_executor());
        service.start_claim(key, claim_for, fencing_token,
                            [ex, h = std::move(handler)](std::exception_ptr failure, claim_result result) mutable {
                                detail::deliver(ex, std::move(h), to_error_code(failure), std::move(result));
                            });
    };
    return boost::asio::async_initiate<Token, void(error_code, claim_result)>(std::move(initiation), token, key,
                                                                              claim_for, fencing_token);
}

/// Marks the claim done with `result`; completes with `void(error_code, finish_status)`. A bad
/// key or an oversized result throws configuration_error from this call.
template <typename Token>
auto async_complete(claim_service& service, const idempotency_claim& claim, const std::string& result, Token&& token) {
    return detail::async_finish(service, claim, std::string(claim_state::done), result, std::forward<Token>(token));
}

/// Marks the claim failed with `message`; completes with `void(error_code, finish_status)`.
template <typename Token>
auto async_fail(claim_service& service, const idempotency_claim& claim, const std::string& message, Token&& token) {
    return detail::async_finish(service, claim, std::string(claim_state::failed), message, std::forward<Token>(token));
}

}  // namespace shedlock::asio
