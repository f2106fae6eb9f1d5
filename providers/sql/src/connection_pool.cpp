#include <shedlock/error.hpp>
#include <shedlock/providers/sql/connection_pool.hpp>

namespace shedlock::providers::sql {

connection_pool::connection_pool(connection_factory factory, std::size_t size, std::chrono::milliseconds wait_timeout)
    : factory_(std::move(factory)), size_(size == 0 ? 1 : size), wait_timeout_(wait_timeout) {}

connection_pool::lease::lease(connection_pool& owner) : pool(owner), connection(owner.acquire(reused)) {}

connection_pool::lease::~lease() {
    if (connection) pool.release(std::move(connection), false);
}

bool connection_pool::lease::discard_if_broken(std::exception_ptr error) noexcept {
    try {
        std::rethrow_exception(error);
    } catch (const storage_error& e) {
        if (e.category() != storage_category::unavailable) return false;
        pool.release(std::move(connection), true);
        return true;
    } catch (...) {
    }
    return false;
}

std::unique_ptr<sql_connection> connection_pool::acquire(bool& reused) {
    std::unique_lock lock(mutex_);
    const bool ready = available_.wait_for(lock, wait_timeout_, [this] { return !idle_.empty() || open_ < size_; });
    if (!ready)
        throw storage_error(storage_category::busy, "all " + std::to_string(size_) +
                                                        " pooled connections stayed busy; raise pool_size");
    if (!idle_.empty()) {
        auto connection = std::move(idle_.back());
        idle_.pop_back();
        reused = true;
        return connection;
    }
    ++open_;  // reserve the slot, then connect without holding the mutex
    lock.unlock();
    try {
        return factory_();
    } catch (...) {
        lock.lock();
        --open_;
        available_.notify_one();
        throw;
    }
}

void connection_pool::release(std::unique_ptr<sql_connection> connection, bool broken) {
    std::vector<std::unique_ptr<sql_connection>> stale;
    {
        std::lock_guard lock(mutex_);
        if (broken) {
            // A broken connection usually means the server went away or restarted: the idle
            // ones are stale too, so drop them now instead of failing one call per connection.
            --open_;
            open_ -= idle_.size();
            stale.swap(idle_);
        } else {
            idle_.push_back(std::move(connection));
        }
    }
    available_.notify_all();
    // Broken and stale connections are destroyed here, outside the mutex.
}

}  // namespace shedlock::providers::sql
