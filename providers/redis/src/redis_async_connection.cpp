#include "redis_async_connection.hpp"

#include "redis_connection.hpp"
#include "redis_errors.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>

namespace shedlock::providers::detail {

std::shared_ptr<redis_async_connection> redis_async_connection::open(async_strand strand,
                                                                     const redis_options& options) {
    std::shared_ptr<redis_async_connection> connection(new redis_async_connection(std::move(strand), options));
    connection->start();
    return connection;
}

redis_async_connection::redis_async_connection(async_strand strand, const redis_options& options)
    : strand_(std::move(strand)),
      options_(options),
      where_(describe_server(options)),
      resolver_(strand_),
      socket_(strand_),
      timer_(strand_) {}

redis_async_connection::~redis_async_connection() {
    drop_handlers_ = true;
    if (context_ != nullptr && !freeing_) redisAsyncFree(context_);  // its cleanup hook releases the socket
}

void redis_async_connection::start() {
    connect_deadline_ = std::chrono::steady_clock::now() + options_.connect_timeout;
    arm_timer(connect_deadline_);
    boost::system::error_code not_numeric;
    const auto address = boost::asio::ip::make_address(options_.host, not_numeric);
    if (!not_numeric) {
        connect_to(address.to_string());
        return;
    }
    // hiredis would resolve a host name with a blocking getaddrinfo() on the executor thread.
    resolver_.async_resolve(options_.host, std::to_string(options_.port),
                            [self = shared_from_this()](boost::system::error_code ec, auto results) {
                                if (self->closed()) return;
                                if (ec || results.empty()) {
                                    self->fail("cannot resolve host \"" + self->options_.host +
                                               "\": " + (ec ? ec.message() : "no address"));
                                    return;
                                }
                                self->connect_to(results.begin()->endpoint().address().to_string());
                            });
}

void redis_async_connection::connect_to(const std::string& address) {
    redisAsyncContext* context = redisAsyncConnect(address.c_str(), options_.port);
    if (context == nullptr || context->err != 0) {
        const std::string detail = context == nullptr ? "out of memory creating the connection" : context->c.errstr;
        if (context != nullptr) redisAsyncFree(context);
        fail(detail);
        return;
    }
    context_ = context;
    socket_.assign(context_->c.fd);
    context_->ev.data = this;
    context_->ev.addRead = &hook_add_read;
    context_->ev.delRead = &hook_del_read;
    context_->ev.addWrite = &hook_add_write;
    context_->ev.delWrite = &hook_del_write;
    context_->ev.cleanup = &hook_cleanup;
    context_->data = this;
    guard_replies();
    redisAsyncSetConnectCallback(context_, &hook_connect);  // waits for writability: connected
}

void redis_async_connection::on_connected(int status) {
    if (status != REDIS_OK) {
        // hiredis frees the context next; its cleanup hook fails what waits.
        freeing_ = true;
        close_reason_ = context_ != nullptr && context_->c.errstr[0] != '\0' ? context_->c.errstr : "connect failed";
        return;
    }
    redisEnableKeepAlive(&context_->c);
    handshake();
}

void redis_async_connection::handshake() {
    state_ = state::handshaking;
    auto step = [self = shared_from_this()](const char* what) {
        return [self, what](const redisReply* reply, std::exception_ptr failure) {
            self->handshake_step(reply, std::move(failure), what);
        };
    };
    if (options_.password) {
        ++handshake_left_;
        const char* what = options_.user.empty() ? "AUTH" : "AUTH (ACL user)";
        std::vector<std::string> auth{"AUTH"};
        if (!options_.user.empty()) auth.push_back(options_.user);
        auth.push_back(*options_.password);
        submit({std::move(auth), what, step(what), connect_deadline_});
    }
    if (options_.db != 0) {
        ++handshake_left_;
        submit({{"SELECT", std::to_string(options_.db)}, "SELECT", step("SELECT"), connect_deadline_});
    }
    if (handshake_left_ == 0) become_ready();
}

void redis_async_connection::handshake_step(const redisReply* reply, std::exception_ptr failure, const char* what) {
    if (closed()) return;
    if (reply == nullptr) {
        fail("the handshake failed", std::move(failure));
    } else if (reply->type == REDIS_REPLY_ERROR) {
        fail(shown_reply({reply->str, reply->len}, what),
             std::make_exception_ptr(reply_error({reply->str, reply->len}, what, where_)));
    } else if (--handshake_left_ == 0) {
        become_ready();
    }
}

void redis_async_connection::become_ready() {
    state_ = state::ready;
    was_ready_ = true;
    while (!waiting_.empty() && ready()) {
        request next = std::move(waiting_.front());
        waiting_.pop_front();
        next.deadline = std::chrono::steady_clock::now() + options_.command_timeout;
        submit(std::move(next));
    }
}

void redis_async_connection::send(const std::vector<std::string>& args, const char* what, reply_handler on_reply) {
    if (closed()) {
        fail_later(std::move(on_reply), failure_of(what, false));
    } else if (!ready()) {
        waiting_.push_back({args, what, std::move(on_reply), {}});
    } else {
        submit({args, what, std::move(on_reply), std::chrono::steady_clock::now() + options_.command_timeout});
    }
}

void redis_async_connection::submit(request r) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const auto& a : r.args) {
        argv.push_back(a.data());
        lengths.push_back(a.size());
    }
    // hiredis copies the command into its output buffer; written when the socket is writable.
    if (redisAsyncCommandArgv(context_, &hook_reply, this, static_cast<int>(argv.size()), argv.data(),
                              lengths.data()) != REDIS_OK) {
        fail_later(std::move(r.on_reply), failure_of(r.what, false));
        return;
    }
    r.args.clear();
    const auto deadline = r.deadline;
    in_flight_.push_back(std::move(r));
    if (in_write_) written_ = in_flight_.size();  // queued from a callback during the write
    update_read_wait();
    arm_timer(deadline);
}

void redis_async_connection::on_reply(const redisReply* reply) {
    if (in_flight_.empty()) return;
    request answered = std::move(in_flight_.front());
    in_flight_.pop_front();
    const bool written = written_ > 0;
    if (written) --written_;
    if (in_flight_.empty() && ready()) disarm_timer();
    if (reply == nullptr) freeing_ = true;  // hiredis is freeing the context
    if (reply == nullptr && state_ != state::closed) {
        // hiredis found the connection broken (closed by the server, a read or write error).
        mark_closed();
        close_reason_ = context_ != nullptr && context_->c.errstr[0] != '\0'
                            ? context_->c.errstr
                            : "connection lost";
    }
    if (drop_handlers_) return;
    try {
        if (reply != nullptr) answered.on_reply(reply, nullptr);
        else answered.on_reply(nullptr, failure_of(answered.what, written));
    } catch (...) {
        // A handler must not throw into hiredis; nothing sensible is left to tell.
    }
}

void redis_async_connection::fail_later(reply_handler on_reply, std::exception_ptr failure) {
    boost::asio::post(strand_, [h = std::move(on_reply), failure]() mutable { h(nullptr, failure); });
}

std::exception_ptr redis_async_connection::failure_of(const char* what, bool sent) const {
    if (close_error_) return close_error_;
    if (state_ != state::ready && state_ != state::closed) sent = false;
    const std::string reason = close_reason_.empty() ? "connection closed" : close_reason_;
    return std::make_exception_ptr(io_error(reason, what, where_, sent ? retry_advice::in_doubt : retry_advice::safe));
}

void redis_async_connection::fail(const std::string& reason, std::exception_ptr error) {
    if (closed() && (context_ == nullptr || freeing_)) return;
    auto keep = shared_from_this();
    const bool connecting = state_ != state::ready;
    mark_closed();
    if (close_reason_.empty()) close_reason_ = reason;
    if (error) close_error_ = std::move(error);
    else if (connecting)
        close_error_ = std::make_exception_ptr(
            io_error(close_reason_, "a connection within connect_timeout=" + std::to_string(options_.connect_timeout.count()) + "ms",
                     where_, retry_advice::safe));
    resolver_.cancel();
    disarm_timer();
    if (context_ == nullptr) {
        on_context_gone();
    } else if (!freeing_) {
        freeing_ = true;
        redisAsyncFree(context_);  // answers what is in flight with null replies, then cleans up
    }
}

void redis_async_connection::on_context_gone() {
    context_ = nullptr;
    if (socket_.is_open()) socket_.release();  // hiredis closes the descriptor itself
    if (state_ != state::closed && close_reason_.empty()) close_reason_ = "connection closed";
    if (state_ == state::connecting || state_ == state::handshaking) {
        mark_closed();
        if (!close_error_)
            close_error_ = std::make_exception_ptr(io_error(
                close_reason_, "a connection within connect_timeout=" + std::to_string(options_.connect_timeout.count()) + "ms",
                where_, retry_advice::safe));
    }
    mark_closed();
    disarm_timer();
    in_flight_.clear();  // hiredis answered each already
    written_ = 0;
    auto waiting = std::move(waiting_);
    waiting_.clear();
    if (drop_handlers_) return;
    for (auto& r : waiting) fail_later(std::move(r.on_reply), failure_of(r.what, false));
}

void redis_async_connection::mark_closed() {
    if (state_ != state::closed) closed_at_ = std::chrono::steady_clock::now();
    state_ = state::closed;
}

void redis_async_connection::shutdown() {
    drop_handlers_ = true;
    fail("the lock service was shut down");
}

}  // namespace shedlock::providers::detail
