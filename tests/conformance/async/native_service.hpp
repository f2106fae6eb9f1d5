#pragma once
// For a backend's test program with a non-blocking driver: the same backend, whose
// make_async_service opens that driver instead of the default (the blocking provider on a pool).
// Used by the backends' files (providers/<name>/tests/<name>_backend.cpp) when the program links
// the driver (SHEDLOCK_TEST_ASYNC_DRIVER, cmake/shedlock_testing.cmake).

#include "conformance.hpp"

#include <shedlock/asio/lock_service.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace shedlock::conformance {

/// Opens the driver's service on `clock` and `executor`; `inner` is the backend it serves (for
/// what the driver needs of it, e.g. a blocking provider that checked the table).
using native_service_factory = std::function<std::unique_ptr<asio::lock_service>(
    backend& inner, const shedlock::clock& clock, asio::lock_service::executor_type executor)>;

namespace detail {

class native_service_backend final : public backend {
public:
    native_service_backend(std::unique_ptr<backend> inner, native_service_factory make)
        : inner_(std::move(inner)), make_(std::move(make)) {}

    std::string name() const override { return inner_->name(); }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        return inner_->make_provider(clock);
    }
    std::unique_ptr<asio::lock_service> make_async_service(const shedlock::clock& clock,
                                                           asio::lock_service::executor_type executor) override {
        return make_(*inner_, clock, std::move(executor));
    }
    bool honours_injected_clock() const override { return inner_->honours_injected_clock(); }
    bool shared_across_processes() const override { return inner_->shared_across_processes(); }
    bool expects_fencing() const override { return inner_->expects_fencing(); }
    bool tokens_start_at_one() const override { return inner_->tokens_start_at_one(); }
    bool deletes_expired_records() const override { return inner_->deletes_expired_records(); }

private:
    std::unique_ptr<backend> inner_;
    native_service_factory make_;
};

}  // namespace detail

/// `inner` with its asynchronous service opened by `make`.
inline std::unique_ptr<backend> with_native_service(std::unique_ptr<backend> inner, native_service_factory make) {
    return std::make_unique<detail::native_service_backend>(std::move(inner), std::move(make));
}

}  // namespace shedlock::conformance
