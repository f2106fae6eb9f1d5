#include <shedlock/asio/blocking_lock_provider.hpp>
#include <shedlock/error.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <future>
#include <optional>

namespace shedlock::asio {

/// What the io thread runs: kept alive by the thread as long as it runs, so a provider destroyed
/// on that very thread (inside a completion) leaves it to end by itself.
struct blocking_lock_provider::runtime {
    boost::asio::io_context io;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work{
        boost::asio::make_work_guard(io)};
    std::unique_ptr<lock_service> service;
};

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
    : runtime_(std::make_shared<runtime>()) {
    runtime_->service = make_service(runtime_->io.get_executor());
    // The service goes first, on the thread, after the last operation: its completions may
    // still have been running until run() returned.
    thread_ = std::thread([rt = runtime_] {
        rt->io.run();
        rt->service.reset();
    });
}

blocking_lock_provider::~blocking_lock_provider() {
    runtime_->work.reset();
    if (thread_.get_id() == std::this_thread::get_id()) thread_.detach();  // destroyed in a completion
    else thread_.join();
}

bool blocking_lock_provider::supports_fencing() const { return runtime_->service->supports_fencing(); }

lock_service& blocking_lock_provider::service() noexcept { return *runtime_->service; }

void blocking_lock_provider::refuse_own_thread(const char* operation) const {
    if (runtime_->io.get_executor().running_in_this_thread())
        throw configuration_error(std::string("blocking ") + operation +
                                  " on the thread of its own asynchronous service (inside one of its completions) "
                                  "would wait for itself; call the service asynchronously there (async_try_lock, "
                                  "the handle's async_unlock / async_extend)");
}

std::optional<lease> blocking_lock_provider::do_try_lock(const lock_configuration& config, const std::string& owner) {
    refuse_own_thread("try_lock");
    return wait_for<std::optional<lease>>(
        [&](completion<std::optional<lease>> done) { runtime_->service->start_try_lock(config, owner, std::move(done)); });
}

void blocking_lock_provider::do_unlock(const lease& held) {
    refuse_own_thread("unlock");
    std::promise<void> promise;
    auto answer = promise.get_future();
    runtime_->service->start_unlock(held, [&promise](std::exception_ptr failure) {
        if (failure) promise.set_exception(failure);
        else promise.set_value();
    });
    answer.get();
}

std::optional<lease> blocking_lock_provider::do_extend(const lease& held, std::chrono::milliseconds at_most,
                                                       std::chrono::milliseconds minimum_hold) {
    refuse_own_thread("extend");
    return wait_for<std::optional<lease>>([&](completion<std::optional<lease>> done) {
        runtime_->service->start_extend(held, at_most, minimum_hold, std::move(done));
    });
}

}  // namespace shedlock::asio
