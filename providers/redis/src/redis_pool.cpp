#include "redis_pool.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::detail {

pooled_connection::~pooled_connection() {
    if (connection_) pool_->give_back(std::move(connection_));
}

pooled_connection redis_pool::borrow() {
    std::unique_lock guard(mutex_);
    const auto deadline = std::chrono::steady_clock::now() + options_.command_timeout;
    while (idle_.empty() && open_ >= options_.pool_size) {
        if (freed_.wait_until(guard, deadline) == std::cv_status::timeout && idle_.empty() && open_ >= options_.pool_size)
            throw storage_error(storage_category::busy,
                                "all " + std::to_string(options_.pool_size) + " connections to " + describe_server(options_) +
                                    " stayed busy for command_timeout=" + std::to_string(options_.command_timeout.count()) +
                                    "ms; raise pool_size");
    }
    if (!idle_.empty()) {
        auto connection = std::move(idle_.back());
        idle_.pop_back();
        return pooled_connection(*this, std::move(connection));
    }
    if (std::chrono::steady_clock::now() < retry_after_)
        throw storage_error(storage_category::unavailable, last_connect_error_ + " (failing fast: the last connect failed less than " +
                                                               std::to_string(reconnect_backoff.count()) + "ms ago)");
    ++open_;
    guard.unlock();
    return pooled_connection(*this, open());
}

std::unique_ptr<redis_connection> redis_pool::open() {
    try {
        auto connection = std::make_unique<redis_connection>(options_);
        std::lock_guard guard(mutex_);
        retry_after_ = {};
        return connection;
    } catch (const storage_error& e) {
        std::lock_guard guard(mutex_);
        --open_;
        if (e.category() == storage_category::unavailable) {
            retry_after_ = std::chrono::steady_clock::now() + reconnect_backoff;
            last_connect_error_ = e.what();
        }
        freed_.notify_one();
        throw;
    } catch (...) {
        std::lock_guard guard(mutex_);
        --open_;
        freed_.notify_one();
        throw;
    }
}

void redis_pool::give_back(std::unique_ptr<redis_connection> connection) noexcept {
    std::vector<std::unique_ptr<redis_connection>> dropped;
    {
        std::lock_guard guard(mutex_);
        if (connection->broken()) {
            dropped.swap(idle_);
            dropped.push_back(std::move(connection));
            open_ -= dropped.size();
        } else {
            idle_.push_back(std::move(connection));
        }
    }
    freed_.notify_all();
    // `dropped` closes its sockets here, outside the lock.
}

}  // namespace shedlock::providers::detail
