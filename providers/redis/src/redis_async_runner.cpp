#include "redis_async_runner.hpp"

#include "redis_errors.hpp"
#include "redis_pool.hpp"

#include <boost/asio/post.hpp>

namespace shedlock::providers::detail {

struct redis_async_runner::operation {
    lock_script_call call;
    async_retry retry = async_retry::when_not_sent;
    script_done done;
    std::size_t slot = 0;
    std::shared_ptr<redis_async_connection> connection;
    bool reused = false;  ///< the connection was in use before this operation
    bool retried = false;
    int reloads = 0;
};

redis_async_runner::redis_async_runner(async_strand strand, const redis_options& options)
    : strand_(std::move(strand)), options_(options), slots_(options.pool_size) {}

void redis_async_runner::run(lock_script_call call, async_retry retry, script_done done) {
    auto op = std::make_shared<operation>();
    op->call = std::move(call);
    op->retry = retry;
    op->done = std::move(done);
    op->slot = next_++ % slots_.size();
    start(op);
}

// Destroyed without shutdown() when its io_context is torn down with the shutdown still queued
// (the application stopped it): nothing runs the strand any more, so the connections are closed
// here, which also frees the operations they hold (and their descriptors).
redis_async_runner::~redis_async_runner() {
    for (auto& slot : slots_)
        if (slot) slot->shutdown();
}

void redis_async_runner::shutdown() {
    shut_down_ = true;
    for (auto& slot : slots_)
        if (slot) slot->shutdown();
    slots_.assign(slots_.size(), nullptr);
}

std::shared_ptr<redis_async_connection> redis_async_runner::connection(std::size_t i) {
    auto& slot = slots_[i];
    if (slot && slot->closed() && !slot->was_ready() &&
        (!failed_connect_ || slot->closed_at() > failed_connect_->closed_at()))
        failed_connect_ = slot;
    // As the blocking pool: shortly after a failed connect, calls fail at once with that connect's
    // error instead of each waiting for a connect of its own.
    if (failed_connect_ && std::chrono::steady_clock::now() - failed_connect_->closed_at() < redis_pool::reconnect_backoff)
        return failed_connect_;
    failed_connect_.reset();
    if (!slot || slot->closed()) slot = redis_async_connection::open(strand_, options_);
    return slot;
}

void redis_async_runner::start(const std::shared_ptr<operation>& op) {
    op->connection = connection(op->slot);
    op->reused = op->connection->ready();
    op->reloads = 0;
    if (scripts_.known_sha(op->call.script).empty()) load_then_eval(op);
    else eval(op);
}

void redis_async_runner::load_then_eval(const std::shared_ptr<operation>& op) {
    const std::vector<std::string> load{"SCRIPT", "LOAD", std::string(script_source(op->call.script))};
    // Weak: the connection holds this handler, and the runner its connections.
    op->connection->send(load, "SCRIPT LOAD", [weak = weak_from_this(), op](const redisReply* reply,
                                                                            std::exception_ptr failure) {
        const auto self = weak.lock();
        if (!self || self->shut_down_) return;
        if (!reply) return self->on_failure(op, std::move(failure));
        try {
            if (reply->type == REDIS_REPLY_ERROR)
                throw reply_error({reply->str, reply->len}, "SCRIPT LOAD", op->connection->where());
            self->scripts_.remember(op->call.script, loaded_sha(*reply, op->connection->where()));
        } catch (...) {
            return self->finish(op, std::current_exception(), 0);
        }
        self->eval(op);
    });
}

void redis_async_runner::eval(const std::shared_ptr<operation>& op) {
    const std::string sha = scripts_.known_sha(op->call.script);
    const std::string numkeys = std::to_string(op->call.keys.size());
    const auto views = evalsha_command(sha, numkeys, op->call.key_views(), op->call.arg_views());
    const std::vector<std::string> command(views.begin(), views.end());
    const char* what = script_name(op->call.script);
    op->connection->send(command, what, [weak = weak_from_this(), op, what](const redisReply* reply,
                                                                         std::exception_ptr failure) {
        const auto self = weak.lock();
        if (!self || self->shut_down_) return;
        if (!reply) return self->on_failure(op, std::move(failure));
        // Same source, same SHA1: only the server forgot it (restart, failover, SCRIPT FLUSH).
        if (is_noscript(*reply) && op->reloads < noscript_reloads) {
            ++op->reloads;
            return self->load_then_eval(op);
        }
        try {
            if (reply->type == REDIS_REPLY_ERROR) throw reply_error({reply->str, reply->len}, what, op->connection->where());
            self->finish(op, nullptr, lock_script_result(*reply, op->connection->where(), op->call.lock_key));
        } catch (...) {
            self->finish(op, std::current_exception(), 0);
        }
    });
}

// A failure without a reply comes from the connection, which is closed by then. As the blocking
// pool does: once more on a new connection when nothing was sent, or (unlock, extend) when in
// doubt on a connection that had been in use.
void redis_async_runner::on_failure(const std::shared_ptr<operation>& op, std::exception_ptr failure) {
    retry_advice advice = retry_advice::permanent;
    try {
        std::rethrow_exception(failure);
    } catch (const storage_error& e) {
        advice = e.advice();
    } catch (...) {
    }
    const bool again = advice == retry_advice::safe ||
                       (advice == retry_advice::in_doubt && op->retry == async_retry::also_in_doubt && op->reused);
    // A connect that failed is not tried again at once (the pool's reconnect backoff).
    if (!op->retried && again && op->connection->closed() && op->connection->was_ready()) {
        op->retried = true;
        return start(op);
    }
    finish(op, std::move(failure), 0);
}

void redis_async_runner::finish(const std::shared_ptr<operation>& op, std::exception_ptr failure, std::int64_t value) {
    op->connection.reset();
    // Posted: the caller's completion never runs inside hiredis (it may start the next call).
    boost::asio::post(strand_, [self = shared_from_this(), op, failure, value]() {
        if (!self->shut_down_) op->done(failure, value);
    });
}

}  // namespace shedlock::providers::detail
