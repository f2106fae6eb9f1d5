#include <shedlock/asio/blocking_lock_provider.hpp>

#include <future>

namespace shedlock::asio {
namespace {

/// Starts an operation and waits for its completion on the calling thread.
template <typename T, typename Start>
T wait_for(Start start) {
    std::promise<T> promise;
    auto answer = promise.get_future();
    start([&promise](std::exception_ptr failure, T value) {
        if (failure) promise.set_exception(failure);
        else promise.set_value(std::move(value));
    });
    return answer.get();
}

}  // namespace

blocking_lock_provider::blocking_lock_provider(const service_factory& make_service)
    : work_(boost::asio::make_work_guard(io_)), service_(make_service(io_.get_executor())), thread_([this] { io_.run(); }) {}

blocking_lock_provider::~blocking_lock_provider() {
    work_.reset();
    thread_.join();
}

std::optional<lease> blocking_lock_provider::do_try_lock(const lock_configuration& config, const std::string& owner) {
    return wait_for<std::optional<lease>>(
        [&](completion<std::optional<lease>> done) { service_->start_try_lock(config, owner, std::move(done)); });
}

void blocking_lock_provider::do_unlock(const lease& held) {
    std::promise<void> promise;
    auto answer = promise.get_future();
    service_->start_unlock(held, [&promise](std::exception_ptr failure) {
        if (failure) promise.set_exception(failure);
        else promise.set_value();
    });
    answer.get();
}

std::optional<lease> blocking_lock_provider::do_extend(const lease& held, std::chrono::milliseconds at_most,
                                                       std::chrono::milliseconds minimum_hold) {
    return wait_for<std::optional<lease>>([&](completion<std::optional<lease>> done) {
        service_->start_extend(held, at_most, minimum_hold, std::move(done));
    });
}

}  // namespace shedlock::asio
