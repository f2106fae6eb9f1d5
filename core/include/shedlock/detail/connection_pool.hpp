#pragma once
/// \file
/// The connection pool every server backend uses (SQL and Redis): opened on demand, broken
/// connections replaced, fail-fast while the server is down, one retry for a call that never
/// reached the server (retry_advice::safe).
/// An implementation detail of the providers; not part of the stable API.

#include <shedlock/error.hpp>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::detail {

/// At most `size` open connections, opened when no idle one is left. A call whose connection
/// fails with storage_category::unavailable (or that the backend marks broken) drops it together
/// with every idle one: they share the server that just failed, so after a restart they are all
/// dead, and the next call connects afresh without any action by the caller.
///
/// Thread safety: safe for concurrent use.
template <typename Connection>
class connection_pool {
public:
    struct settings {
        std::size_t size = 1;
        /// How long a call waits for a free connection before it fails with storage_category::busy.
        std::chrono::milliseconds wait_timeout{5000};
        /// After a connect fails with storage_category::unavailable, further connects are skipped
        /// this long and calls fail at once with the same error, so an outage costs callers
        /// microseconds instead of a connect timeout each. Zero: every call tries to connect.
        std::chrono::milliseconds reconnect_backoff{0};
        /// Names the server in the "stayed busy" message.
        std::string server;
        /// True when a connection must not be reused (e.g. a reply stream out of step); empty: only
        /// an `unavailable` error breaks a connection.
        std::function<bool(const Connection&)> broken;
    };
    using factory = std::function<std::unique_ptr<Connection>()>;

    /// A borrowed connection; goes back to the pool (or is dropped when broken) on destruction.
    class borrowed_connection {
    public:
        explicit borrowed_connection(connection_pool& pool) : pool_(&pool), connection_(pool.acquire(reused_)) {}
        borrowed_connection(borrowed_connection&& other) noexcept
            : pool_(other.pool_), reused_(other.reused_), connection_(std::move(other.connection_)) {}
        borrowed_connection& operator=(borrowed_connection&&) = delete;
        ~borrowed_connection() {
            if (connection_) pool_->give_back(std::move(connection_), false);
        }
        Connection& operator*() const noexcept { return *connection_; }
        Connection* operator->() const noexcept { return connection_.get(); }
        /// Taken from the idle list rather than opened for this borrower.
        bool reused() const noexcept { return reused_; }
        /// Drops the connection (and the idle ones) when `error` says it is broken; true if so.
        bool discard_if_broken(std::exception_ptr error) noexcept {
            if (!connection_ || !(is_unavailable(error) || pool_->reports_broken(*connection_))) return false;
            pool_->give_back(std::move(connection_), true);
            return true;
        }

    private:
        connection_pool* pool_;
        bool reused_ = false;
        std::unique_ptr<Connection> connection_;
    };

    connection_pool(factory open, settings s) : open_connection_(std::move(open)), settings_(std::move(s)) {
        if (settings_.size == 0) settings_.size = 1;
    }
    connection_pool(const connection_pool&) = delete;
    connection_pool& operator=(const connection_pool&) = delete;

    /// A connection, waiting up to wait_timeout for a free one. Throws storage_error.
    borrowed_connection borrow() { return borrowed_connection(*this); }

    /// Borrows a connection, calls fn(connection) and returns its result.
    template <typename Fn>
    auto run(Fn&& fn) {
        borrowed_connection borrowed(*this);
        try {
            return fn(*borrowed);
        } catch (...) {
            borrowed.discard_if_broken(std::current_exception());
            throw;
        }
    }

    /// run(fn), once more on a new connection when the call failed with retry_advice::safe and
    /// its connection was dropped as broken: the request never reached the server (the
    /// connection had closed while it idled in the pool: a server restart, an idle timeout, a
    /// killed session), so running it again is safe for any statement, an INSERT included.
    /// Without the retry a holder's unlock after a long task fails, and the lock stays held until
    /// its lock_until. A failure in doubt (the connection broke after the request was sent) is
    /// never run again: it may have been applied, and the caller reports it as such.
    template <typename Fn>
    auto run_retrying_safe(Fn&& fn) {
        {
            borrowed_connection borrowed(*this);
            try {
                return fn(*borrowed);
            } catch (...) {
                const auto error = std::current_exception();
                const bool broken = borrowed.discard_if_broken(error);
                if (!broken || advice_of(error) != retry_advice::safe) throw;
            }
        }
        return run(fn);  // dropping the broken connection dropped every idle one: this one is new
    }

    /// run_retrying_safe(fn) for a call that may run twice (the owner-checked unlock, extend and
    /// claim completion), which is run once more also when it is in doubt, if its connection had
    /// idled in the pool: its second run settles the first (the owner check matches nothing when
    /// the first was applied, and the idempotency store reads the record to tell that apart).
    template <typename Fn>
    auto run_retrying_in_doubt(Fn&& fn) {
        {
            borrowed_connection borrowed(*this);
            try {
                return fn(*borrowed);
            } catch (...) {
                const auto error = std::current_exception();
                const bool broken = borrowed.discard_if_broken(error);
                const auto advice = advice_of(error);
                const bool again = advice == retry_advice::safe || (advice == retry_advice::in_doubt && borrowed.reused());
                if (!broken || !again) throw;
            }
        }
        return run(fn);
    }

private:
    static retry_advice advice_of(std::exception_ptr error) noexcept {
        try {
            if (error) std::rethrow_exception(error);
        } catch (const storage_error& e) {
            return e.advice();
        } catch (...) {
        }
        return retry_advice::permanent;
    }

    static bool is_unavailable(std::exception_ptr error) noexcept {
        try {
            if (error) std::rethrow_exception(error);
        } catch (const storage_error& e) {
            return e.category() == storage_category::unavailable;
        } catch (...) {
        }
        return false;
    }

    bool reports_broken(const Connection& c) const noexcept { return settings_.broken && settings_.broken(c); }

    std::unique_ptr<Connection> acquire(bool& reused) {
        std::unique_lock guard(mutex_);
        const bool ready = freed_.wait_for(guard, settings_.wait_timeout,
                                           [this] { return !idle_.empty() || open_ < settings_.size; });
        if (!ready) throw storage_error(storage_category::busy, busy_message());
        if (!idle_.empty()) {
            auto connection = std::move(idle_.back());
            idle_.pop_back();
            reused = true;
            return connection;
        }
        if (std::chrono::steady_clock::now() < retry_after_)
            throw storage_error(storage_category::unavailable, retry_advice::safe,  // nothing was sent
                                last_connect_error_ + " (failing fast: the last connect failed less than " +
                                    std::to_string(settings_.reconnect_backoff.count()) + "ms ago)");
        ++open_;  // reserve the slot, then connect without holding the mutex
        guard.unlock();
        return open_reserved();
    }

    std::unique_ptr<Connection> open_reserved() {
        try {
            auto connection = open_connection_();
            std::lock_guard guard(mutex_);
            retry_after_ = {};
            return connection;
        } catch (const storage_error& e) {
            note_connect_failure(e.category() == storage_category::unavailable ? e.what() : nullptr);
            throw;
        } catch (...) {
            note_connect_failure(nullptr);
            throw;
        }
    }

    /// Frees the reserved slot; `unavailable_error` (the server is down) starts the backoff.
    void note_connect_failure(const char* unavailable_error) {
        {
            std::lock_guard guard(mutex_);
            --open_;
            if (unavailable_error && settings_.reconnect_backoff.count() > 0) {
                retry_after_ = std::chrono::steady_clock::now() + settings_.reconnect_backoff;
                last_connect_error_ = unavailable_error;
            }
        }
        freed_.notify_one();
    }

    void give_back(std::unique_ptr<Connection> connection, bool broken) noexcept {
        std::vector<std::unique_ptr<Connection>> dropped;
        {
            std::lock_guard guard(mutex_);
            if (broken || reports_broken(*connection)) {
                dropped.swap(idle_);
                dropped.push_back(std::move(connection));
                open_ -= dropped.size();
            } else {
                idle_.push_back(std::move(connection));
            }
        }
        freed_.notify_all();
        // `dropped` closes its connections here, outside the mutex.
    }

    std::string busy_message() const {
        return "all " + std::to_string(settings_.size) + " pooled connections" +
               (settings_.server.empty() ? "" : " to " + settings_.server) + " stayed busy for " +
               std::to_string(settings_.wait_timeout.count()) + "ms; raise pool_size";
    }

    factory open_connection_;
    settings settings_;
    std::mutex mutex_;
    std::condition_variable freed_;
    std::vector<std::unique_ptr<Connection>> idle_;
    std::size_t open_ = 0;  ///< idle + borrowed + being opened
    std::chrono::steady_clock::time_point retry_after_{};
    std::string last_connect_error_;
};

}  // namespace shedlock::detail
