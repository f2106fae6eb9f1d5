// The conformance backend seen through the asynchronous interface, and the default asynchronous
// service of a backend (its blocking provider on a pool).
#include "async_interface.hpp"
#include "async_lock_provider.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/error.hpp>

#include <cstdlib>

namespace shedlock::conformance {
namespace {

/// `inner` with its providers replaced by async_lock_provider: every case, the model test and
/// the forked contenders included, then locks through the token API.
class async_backend final : public backend {
public:
    async_backend(std::unique_ptr<backend> inner, interface_kind kind) : inner_(std::move(inner)), kind_(kind) {}

    std::string name() const override { return inner_->name() + " through " + to_string(kind_); }
    std::unique_ptr<lock_provider> make_provider(const shedlock::clock& clock) override {
        return std::make_unique<async_lock_provider>(*inner_, clock, kind_);
    }
    std::unique_ptr<asio::lock_service> make_async_service(const shedlock::clock& clock,
                                                           asio::lock_service::executor_type executor) override {
        return inner_->make_async_service(clock, std::move(executor));
    }
    bool honours_injected_clock() const override { return inner_->honours_injected_clock(); }
    bool shared_across_processes() const override { return inner_->shared_across_processes(); }
    bool expects_fencing() const override { return inner_->expects_fencing(); }
    bool tokens_start_at_one() const override { return inner_->tokens_start_at_one(); }
    bool deletes_expired_records() const override { return inner_->deletes_expired_records(); }

private:
    std::unique_ptr<backend> inner_;
    interface_kind kind_;
};

}  // namespace

std::unique_ptr<asio::lock_service> backend::make_async_service(const shedlock::clock& clock,
                                                                asio::lock_service::executor_type executor) {
    // Four threads: the contention case's eight threads queue for them, as an application's would.
    return std::make_unique<asio::pooled_lock_service>(std::shared_ptr<lock_provider>(make_provider(clock)),
                                                       std::move(executor), std::make_shared<asio::blocking_pool>(4));
}

interface_kind interface_from_env() {
    const char* value = std::getenv("SHEDLOCK_CONFORMANCE_INTERFACE");
    const std::string v = value ? value : "";
    if (v.empty() || v == "blocking") return interface_kind::blocking;
    if (v == "awaitable") return interface_kind::awaitable;
    if (v == "callbacks") return interface_kind::callbacks;
    throw configuration_error("SHEDLOCK_CONFORMANCE_INTERFACE=\"" + v +
                              "\" is not an interface; write blocking, awaitable or callbacks (or leave it unset)");
}

std::string to_string(interface_kind kind) {
    switch (kind) {
        case interface_kind::blocking: return "blocking";
        case interface_kind::awaitable: return "awaitable";
        case interface_kind::callbacks: return "callbacks";
    }
    return "unknown";
}

std::unique_ptr<backend> with_interface(std::unique_ptr<backend> inner, interface_kind kind) {
    if (kind == interface_kind::blocking) return inner;
    return std::make_unique<async_backend>(std::move(inner), kind);
}

}  // namespace shedlock::conformance
