#include "async_lock_provider.hpp"

#include <shedlock/asio/error.hpp>
#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/error.hpp>

#include <chrono>
#include <iostream>
#include <mutex>
#include <stdexcept>

namespace shedlock::conformance {
namespace {

/// The exception the blocking interface reports for an error code of the asynchronous one (the
/// reverse of asio::to_error_code), so that cases catching storage_error see one.
[[noreturn]] void throw_failure(const asio::error_code& error, const std::string& what) {
    const std::string message = what + " through the asynchronous interface failed: " + error.message();
    if (error.category() == asio::error_category()) {
        switch (static_cast<asio::errc>(error.value())) {
            case asio::errc::backend_unavailable:
            case asio::errc::shut_down:
                throw storage_error(storage_category::unavailable, retry_advice::safe, message);
            case asio::errc::in_doubt:
                throw storage_error(storage_category::unavailable, retry_advice::in_doubt, message);
            case asio::errc::invalid_argument: throw configuration_error(message);
            case asio::errc::lock_state: throw lock_state_error(message);
            case asio::errc::unsupported: throw unsupported_operation_error(message);
            case asio::errc::backend_error: break;
        }
    }
    throw storage_error(storage_category::other, retry_advice::permanent, message);
}

std::string describe(const lease& held) { return "lock \"" + held.name + "\" (owner " + held.owner + ")"; }

}  // namespace

async_lock_provider::async_lock_provider(backend& inner, const shedlock::clock& clock, interface_kind kind)
    : lock_provider(clock), work_(boost::asio::make_work_guard(io_)) {
    service_ = inner.make_async_service(clock, io_.get_executor());
    if (auto* pooled = dynamic_cast<asio::pooled_lock_service*>(service_.get())) {
        inspection_ = &pooled->provider();  // in-process storage (memory) is that provider's own
    } else {
        own_inspection_ = inner.make_provider(clock);
        inspection_ = own_inspection_.get();
    }
    calls_ = kind == interface_kind::awaitable ? make_awaitable_calls(io_) : make_callback_calls();
    thread_ = std::thread([this] { io_.run(); });
    // Once per process: which service the cases ran on (a native driver, or the pool).
    static std::once_flag said;
    std::call_once(said, [&] {
        std::cout << "conformance through " << to_string(kind) << " on " << inner.name() << ": "
                  << service_->describe() << std::endl;
    });
}

async_lock_provider::~async_lock_provider() { stop_thread(); }

void async_lock_provider::stop_thread() {
    std::map<handle_key, asio::lock_handle> left;
    {
        std::lock_guard<std::mutex> guard(mutex_);
        left.swap(handles_);
    }
    // Normally none: every blocking handle unlocks or is extended away before its provider goes.
    for (auto& [key, handle] : left) (void)calls_->unlock(std::move(handle));
    // Nothing of ours is in flight now. A native service may keep a read pending on its
    // connection for ever, so the loop is stopped rather than left to run dry.
    work_.reset();
    io_.stop();
    thread_.join();
    service_.reset();
}

std::optional<lease> async_lock_provider::do_try_lock(const lock_configuration& config, const std::string&) {
    // The owner token is async_try_lock's own (it makes one per call, as try_lock does).
    auto outcome = calls_->try_lock(*service_, config);
    if (outcome.error) throw_failure(outcome.error, "try_lock of lock \"" + config.name() + "\"");
    if (!outcome.handle) return std::nullopt;
    return remember(std::move(*outcome.handle));
}

void async_lock_provider::do_unlock(const lease& held) {
    if (auto error = calls_->unlock(take(held))) throw_failure(error, "unlock of " + describe(held));
}

std::optional<lease> async_lock_provider::do_extend(const lease& held, std::chrono::milliseconds at_most,
                                                    std::chrono::milliseconds minimum_hold) {
    auto outcome = calls_->extend(take(held), at_most, minimum_hold);
    // A failed extension hands the old lease back, still active: the blocking handle keeps it too.
    std::optional<lease> next;
    if (outcome.handle) next = remember(std::move(*outcome.handle));
    if (outcome.error) throw_failure(outcome.error, "extend of " + describe(held));
    return next;
}

lease async_lock_provider::remember(asio::lock_handle handle) {
    lease granted = handle.lease();
    std::lock_guard<std::mutex> guard(mutex_);
    handles_.insert_or_assign(handle_key{granted.name, granted.owner}, std::move(handle));
    return granted;
}

asio::lock_handle async_lock_provider::take(const lease& held) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto found = handles_.find(handle_key{held.name, held.owner});
    if (found == handles_.end())
        throw std::logic_error("conformance adapter: no asynchronous handle for " + describe(held) +
                               "; every lease it hands out comes from async_try_lock or async_extend");
    asio::lock_handle handle = std::move(found->second);
    handles_.erase(found);
    return handle;
}

}  // namespace shedlock::conformance
