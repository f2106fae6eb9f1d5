// The Asio side of redis_async_connection: hiredis's event hooks, the socket waits that call
// redisAsyncHandleRead/Write, and the one timer per connection that enforces connect_timeout and
// command_timeout.
#include "redis_async_connection.hpp"

#include <poll.h>

namespace shedlock::providers::detail {
namespace {

redis_async_connection& of(void* self) { return *static_cast<redis_async_connection*>(self); }

}  // namespace

// hiredis calls the hooks from inside redisAsync* calls, all made on the strand. They are
// idempotent: a wait already pending is not started twice.
void redis_async_connection::hook_add_read(void* self) {
    auto& c = of(self);
    c.want_read_ = true;
    c.update_read_wait();
}
void redis_async_connection::hook_del_read(void* self) { of(self).want_read_ = false; }
void redis_async_connection::hook_add_write(void* self) {
    auto& c = of(self);
    c.want_write_ = true;
    if (!c.write_waiting_) c.wait_writable();
}
void redis_async_connection::hook_del_write(void* self) { of(self).want_write_ = false; }
void redis_async_connection::hook_cleanup(void* self) { of(self).on_context_gone(); }
void redis_async_connection::hook_connect(const redisAsyncContext* context, int status) {
    of(context->data).on_connected(status);
}
void redis_async_connection::hook_reply(redisAsyncContext*, void* reply, void* self) {
    of(self).on_reply(static_cast<const redisReply*>(reply));
}

// A reply is built by hiredis's reader through these constructors; the reader hands each task
// its privdata (this connection). A top-level reply when no command is in flight (a server that
// answers twice, or talks unasked) would reach hiredis's assert in redisProcessCallbacks; refusing
// it makes the reader fail, and hiredis closes the connection instead (the commands not written
// fail safe). An unasked error reply stays with hiredis, which closes on it itself (keeping its
// text: "max number of clients").
void redis_async_connection::guard_replies() {
    hiredis_functions_ = context_->c.reader->fn;
    reply_functions_ = *hiredis_functions_;
    reply_functions_.createString = &reply_string;
    reply_functions_.createArray = &reply_array;
    reply_functions_.createInteger = &reply_integer;
    reply_functions_.createNil = &reply_nil;
    context_->c.reader->fn = &reply_functions_;
    context_->c.reader->privdata = this;
}

// Refused as well: a reply while the oldest command in flight was not written yet (queued from a
// callback during this read); hiredis would hand it to that command, "answered" before it was sent.
bool redis_async_connection::accepts_reply(const redisReadTask* task) {
    if (task->parent != nullptr || written_ > 0) return true;
    if (task->type == REDIS_REPLY_ERROR && in_flight_.empty()) return true;
    if (close_reason_.empty()) close_reason_ = "the server sent a reply no command asked for (is it a Redis server?)";
    return false;
}

void* redis_async_connection::reply_string(const redisReadTask* task, char* text, size_t length) {
    auto& c = of(task->privdata);
    return c.accepts_reply(task) ? c.hiredis_functions_->createString(task, text, length) : nullptr;
}
void* redis_async_connection::reply_array(const redisReadTask* task, int elements) {
    auto& c = of(task->privdata);
    return c.accepts_reply(task) ? c.hiredis_functions_->createArray(task, elements) : nullptr;
}
void* redis_async_connection::reply_integer(const redisReadTask* task, long long value) {
    auto& c = of(task->privdata);
    return c.accepts_reply(task) ? c.hiredis_functions_->createInteger(task, value) : nullptr;
}
void* redis_async_connection::reply_nil(const redisReadTask* task) {
    auto& c = of(task->privdata);
    return c.accepts_reply(task) ? c.hiredis_functions_->createNil(task) : nullptr;
}

// Reading only while a reply is awaited: an idle connection holds no pending wait, so it never
// keeps io_context::run() from returning. A server that closed it meanwhile is found before the
// next write (closed_while_idle).
void redis_async_connection::update_read_wait() {
    if (want_read_ && !read_waiting_ && !in_flight_.empty() && context_ != nullptr && !freeing_) wait_readable();
}

void redis_async_connection::wait_readable() {
    read_waiting_ = true;
    socket_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                       [self = shared_from_this()](boost::system::error_code ec) { self->on_readable(ec); });
}

void redis_async_connection::wait_writable() {
    write_waiting_ = true;
    socket_.async_wait(boost::asio::posix::stream_descriptor::wait_write,
                       [self = shared_from_this()](boost::system::error_code ec) { self->on_writable(ec); });
}

void redis_async_connection::on_readable(boost::system::error_code ec) {
    read_waiting_ = false;
    if (ec == boost::asio::error::operation_aborted) return update_read_wait();  // drop_idle_read_wait
    if (context_ == nullptr || freeing_ || !want_read_) return;
    if (ec) return fail("waiting to read: " + ec.message());
    redisAsyncHandleRead(context_);  // replies, or the end of the stream (frees the context)
    drop_idle_read_wait();
    update_read_wait();
}

// hiredis asks for the next read before it hands out the replies just read: once the last one
// is answered, that wait is cancelled (with any write wait, which on_writable then restores).
void redis_async_connection::drop_idle_read_wait() {
    if (read_waiting_ && in_flight_.empty() && context_ != nullptr && !freeing_) socket_.cancel();
}

void redis_async_connection::on_writable(boost::system::error_code ec) {
    write_waiting_ = false;
    if (context_ == nullptr || freeing_ || !want_write_) return;
    if (ec == boost::asio::error::operation_aborted) return wait_writable();  // cancelled with an idle read wait
    if (ec) return fail("waiting to write: " + ec.message());
    if (closed_while_idle()) {
        fail("the server closed the connection while it idled; not sent");
        return;
    }
    // Everything queued goes out now (or may have, if the write fails): a failure from here on
    // leaves these commands in doubt.
    written_ = in_flight_.size();
    in_write_ = true;
    redisAsyncHandleWrite(context_);  // the first one also completes the TCP connect
    in_write_ = false;
    if (context_ != nullptr && !freeing_) written_ = in_flight_.size();
    if (context_ != nullptr && !freeing_ && want_write_ && !write_waiting_) wait_writable();
}

// Redis sends nothing unasked on these connections (no subscriptions): readable while no reply
// is awaited means the end of the stream (a restart, CLIENT KILL, the server's idle timeout),
// which the read wait may not have seen yet. What is queued was then never sent: safe to retry.
bool redis_async_connection::closed_while_idle() const {
    if (written_ != 0 || (context_->c.flags & REDIS_CONNECTED) == 0) return false;
    pollfd idle{context_->c.fd, POLLIN, 0};
    return ::poll(&idle, 1, 0) > 0;
}

void redis_async_connection::arm_timer(std::chrono::steady_clock::time_point deadline) {
    if (closed() || (timer_armed_ && timer_.expiry() <= deadline)) return;
    timer_armed_ = true;
    timer_.expires_at(deadline);  // cancels a later wait, whose handler then sees operation_aborted
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec == boost::asio::error::operation_aborted) return;
        self->timer_armed_ = false;
        self->check_deadlines();
    });
}

void redis_async_connection::disarm_timer() {
    timer_armed_ = false;
    timer_.cancel();
}

void redis_async_connection::check_deadlines() {
    if (closed()) return;
    const auto now = std::chrono::steady_clock::now();
    if (!ready()) {
        if (now < connect_deadline_) arm_timer(connect_deadline_);
        else fail("not connected within connect_timeout=" + std::to_string(options_.connect_timeout.count()) + "ms");
        return;
    }
    if (in_flight_.empty()) return;
    // Replies come in order and every command has the same timeout: the oldest is due first.
    if (now < in_flight_.front().deadline) arm_timer(in_flight_.front().deadline);
    else fail("timed out: no reply within command_timeout=" + std::to_string(options_.command_timeout.count()) + "ms");
}

}  // namespace shedlock::providers::detail
