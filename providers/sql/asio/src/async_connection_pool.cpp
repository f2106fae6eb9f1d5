#include <shedlock/error.hpp>
#include <shedlock/providers/sql/async_connection_pool.hpp>

#include <boost/asio/post.hpp>

#include <algorithm>

namespace shedlock::providers::sql {

struct async_connection_pool::job {
    job(boost::asio::any_io_executor ex, std::string s, std::vector<sql_param> p, bool r, retry_policy rp,
        asio::completion<sql_result> d)
        : sql(std::move(s)), params(std::move(p)), relaxed(r), policy(rp), done(std::move(d)), timer(std::move(ex)) {}
    std::string sql;
    std::vector<sql_param> params;
    bool relaxed;
    retry_policy policy;
    asio::completion<sql_result> done;
    boost::asio::steady_timer timer;  // the wait for a free connection
    bool second_attempt = false;
    bool waiting = false;

    void complete(std::exception_ptr failure, sql_result result) {
        auto d = std::move(done);
        if (d) d(failure, std::move(result));
    }
};

namespace {

retry_advice advice_of(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const storage_error& e) {
        return e.advice();
    } catch (...) {
        return retry_advice::permanent;
    }
}

}  // namespace

async_connection_pool::async_connection_pool(boost::asio::any_io_executor executor, async_connection_factory connect,
                                             std::size_t size, std::chrono::milliseconds wait)
    : strand_(boost::asio::make_strand(std::move(executor))),
      connect_(std::move(connect)),
      size_(std::max<std::size_t>(size, 1)),
      wait_(wait) {}

void async_connection_pool::execute(std::string sql, std::vector<sql_param> params, bool relaxed, retry_policy policy,
                                    asio::completion<sql_result> done) {
    auto j = std::make_shared<job>(strand_, std::move(sql), std::move(params), relaxed, policy, std::move(done));
    boost::asio::post(strand_, [self = shared_from_this(), j] { self->admit(j); });
}

void async_connection_pool::admit(std::shared_ptr<job> j) {
    if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        run(std::move(c), true, std::move(j));
    } else if (open_ < size_) {
        open_for(std::move(j));
    } else {
        j->waiting = true;
        j->timer.expires_after(wait_);
        j->timer.async_wait([self = shared_from_this(), j](boost::system::error_code ec) {
            if (!ec) self->expire(j);
        });
        waiting_.push_back(std::move(j));
    }
}

void async_connection_pool::expire(const std::shared_ptr<job>& j) {
    const auto it = std::find(waiting_.begin(), waiting_.end(), j);
    if (it == waiting_.end()) return;
    waiting_.erase(it);
    j->complete(std::make_exception_ptr(storage_error(
                    storage_category::unavailable, retry_advice::safe,
                    "no connection of the pool (" + std::to_string(size_) + ") was free within " +
                        std::to_string(wait_.count()) +
                        " ms (pool_wait); raise pool_size in the URI or keep fewer calls in flight")),
                {});
}

void async_connection_pool::open_for(std::shared_ptr<job> j) {
    ++open_;
    connect_(strand_, [self = shared_from_this(), j](std::exception_ptr failure,
                                                    std::unique_ptr<async_sql_connection> c) mutable {
        // The factory completes on the strand (it was given it).
        if (failure || !c) {
            --self->open_;
            j->complete(failure ? failure
                                : std::make_exception_ptr(storage_error(storage_category::unavailable,
                                                                        retry_advice::safe, "no connection was opened")),
                        {});
            self->serve_waiting(nullptr);
            return;
        }
        self->run(std::move(c), false, std::move(j));
    });
}

void async_connection_pool::run(std::unique_ptr<async_sql_connection> c, bool reused, std::shared_ptr<job> j) {
    async_sql_connection* conn = c.get();
    busy_.push_back(std::move(c));
    // The statement text and parameters stay with the job: a second attempt sends them again.
    // The pool's part runs after the connection's callback has returned (posted): it may then
    // destroy the connection or hand it the next statement without re-entering it.
    conn->async_execute(j->sql, j->params, j->relaxed,
                        [self = shared_from_this(), conn, reused, j](std::exception_ptr failure,
                                                                     sql_result result) mutable {
                            boost::asio::post(self->strand_, [self, conn, reused, j = std::move(j), failure,
                                                              result = std::move(result)]() mutable {
                                self->finished(self->take_busy(conn), reused, std::move(j), failure, std::move(result));
                            });
                        });
}

std::unique_ptr<async_sql_connection> async_connection_pool::take_busy(async_sql_connection* conn) {
    const auto it = std::find_if(busy_.begin(), busy_.end(), [conn](const auto& c) { return c.get() == conn; });
    auto c = std::move(*it);
    busy_.erase(it);
    return c;
}

void async_connection_pool::finished(std::unique_ptr<async_sql_connection> c, bool reused, std::shared_ptr<job> j,
                                     std::exception_ptr failure, sql_result result) {
    const bool broken = !c->usable();
    if (broken) {
        // A connection that broke (a restart, a killed session) usually means the idle ones did
        // too: drop them, as the blocking pool does, so the retry gets a new one.
        --open_;
        open_ -= idle_.size();
        idle_.clear();
        c.reset();
    }
    if (failure && broken && !j->second_attempt) {
        const auto advice = advice_of(failure);
        const bool again = advice == retry_advice::safe ||
                           (advice == retry_advice::in_doubt && reused && j->policy == retry_policy::when_safe_or_idle);
        if (again) {
            j->second_attempt = true;
            serve_waiting(nullptr);
            admit(std::move(j));
            return;
        }
    }
    j->complete(failure, std::move(result));
    serve_waiting(std::move(c));
}

void async_connection_pool::serve_waiting(std::unique_ptr<async_sql_connection> c) {
    if (waiting_.empty()) {
        if (c) idle_.push_back(std::move(c));
        return;
    }
    if (!c && open_ >= size_) return;
    auto j = std::move(waiting_.front());
    waiting_.pop_front();
    j->waiting = false;
    j->timer.cancel();
    if (c) run(std::move(c), true, std::move(j));
    else open_for(std::move(j));
}

}  // namespace shedlock::providers::sql
