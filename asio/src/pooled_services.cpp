#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/detail/lock_provider_access.hpp>

#include <boost/asio/post.hpp>

#include <memory>
#include <thread>

namespace shedlock::asio {
namespace {

/// The pool whose thread this is, if any (set around every call it runs).
thread_local const blocking_pool* current_pool = nullptr;

/// Runs `call` on the pool and completes `done` with its value or its exception. `pool` is held
/// until the post has returned: the job may finish first and drop the pool's last other owner
/// (its completion holds the service), and a pool destroyed inside its own post() is a use after
/// free (ThreadSanitizer: pthread_cond_signal against pthread_cond_destroy).
template <typename T, typename Call>
void run_on(std::shared_ptr<blocking_pool> pool, completion<T> done, Call call) {
    pool->post([done = std::move(done), call = std::move(call)]() mutable {
        std::exception_ptr failure;
        T value{};
        try {
            value = call();
        } catch (...) {
            failure = std::current_exception();
        }
        // Moved, not copied: this thread keeps no reference to an exception another thread reads.
        done(std::move(failure), std::move(value));
    });
}

}  // namespace

blocking_pool::blocking_pool(std::size_t threads)
    : threads_(threads == 0 ? 1 : threads), pool_(std::make_unique<boost::asio::thread_pool>(threads_)) {}

blocking_pool::~blocking_pool() {
    if (current_pool == this) {
        // Joining from one of its own threads would wait for itself: a thread of its own joins
        // them once this call (the last) has returned.
        std::thread([pool = std::move(pool_)] { pool->join(); }).detach();
        return;
    }
    pool_->join();
}

void blocking_pool::post(detail::unique_function<void()> call) {
    boost::asio::post(*pool_, [this, call = std::move(call)]() mutable {
        current_pool = this;
        call();
        call = {};  // what it held (a service's last owner, this pool's) goes while marked as ours
        current_pool = nullptr;
    });
}

pooled_lock_service::pooled_lock_service(std::shared_ptr<lock_provider> provider, executor_type executor,
                                         std::shared_ptr<blocking_pool> pool)
    : provider_(std::move(provider)), executor_(std::move(executor)), pool_(std::move(pool)) {}

std::string pooled_lock_service::describe() const {
    return "blocking calls on a pool of " + std::to_string(pool_->threads()) + " threads";
}

void pooled_lock_service::start_try_lock(const lock_configuration& config, std::string owner,
                                         completion<std::optional<lease>> done) {
    run_on(pool_, std::move(done), [provider = provider_, config, owner = std::move(owner)] {
        return shedlock::detail::lock_provider_access::try_lock(*provider, config, owner);
    });
}

void pooled_lock_service::start_unlock(lease held, void_completion done) {
    const auto pool = pool_;  // held until post() returns (run_on says why)
    pool->post([provider = provider_, held = std::move(held), done = std::move(done)]() mutable {
        std::exception_ptr failure;
        try {
            shedlock::detail::lock_provider_access::unlock(*provider, held);
        } catch (...) {
            failure = std::current_exception();
        }
        done(std::move(failure));
    });
}

void pooled_lock_service::start_extend(lease held, std::chrono::milliseconds at_most,
                                       std::chrono::milliseconds minimum_hold, completion<std::optional<lease>> done) {
    run_on(pool_, std::move(done), [provider = provider_, held = std::move(held), at_most, minimum_hold] {
        return shedlock::detail::lock_provider_access::extend(*provider, held, at_most, minimum_hold);
    });
}

pooled_claim_service::pooled_claim_service(std::shared_ptr<idempotency_store> store, executor_type executor,
                                           std::shared_ptr<blocking_pool> pool)
    : store_(std::move(store)), executor_(std::move(executor)), pool_(std::move(pool)) {}

std::string pooled_claim_service::describe() const {
    return "blocking calls on a pool of " + std::to_string(pool_->threads()) + " threads";
}

void pooled_claim_service::start_claim(std::string key, std::chrono::milliseconds claim_for,
                                       std::optional<std::int64_t> fencing_token, completion<claim_result> done) {
    run_on(pool_, std::move(done), [store = store_, key = std::move(key), claim_for, fencing_token] {
        return store->claim(key, claim_for, fencing_token);
    });
}

void pooled_claim_service::start_finish(idempotency_claim claim, std::string state, std::string result,
                                        completion<finish_status> done) {
    run_on(pool_, std::move(done), [store = store_, claim = std::move(claim), state = std::move(state),
                                     result = std::move(result)] {
        return state == claim_state::done ? store->complete(claim, result) : store->fail(claim, result);
    });
}

}  // namespace shedlock::asio
