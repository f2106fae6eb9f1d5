#pragma once
// One hiredis asynchronous connection (redisAsyncContext) driven by Asio: hiredis's event hooks
// (addRead/delRead/addWrite/delWrite/cleanup) become async_wait()s on the context's socket, and
// Asio timers supply the connect and command timeouts hiredis 0.14 lacks. Everything runs on one
// strand of the application's executor; no call blocks (the host name is resolved by Asio).

#include <shedlock/asio/detail/unique_function.hpp>
#include <shedlock/providers/redis_lock_provider.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <hiredis/async.h>

#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace shedlock::providers::detail {

using async_strand = boost::asio::strand<boost::asio::any_io_executor>;

/// The answer to one command, called on the strand: the reply (valid during the call only; it may
/// be an error reply, which the caller classifies) or, with a null reply, the failure: a
/// storage_error with retry advice safe when the command was never written, in doubt once it was.
/// Called from inside hiredis: it must not throw and must not destroy the connection's owner.
using reply_handler = shedlock::asio::detail::unique_function<void(const redisReply*, std::exception_ptr)>;

/// A connection that authenticates (AUTH) and selects its database (SELECT) before any command
/// of the caller's is written; commands sent earlier wait for that. Commands are pipelined: any
/// number may be in flight, answered in order.
///
/// Failure: a connection that fails (refused, closed by the server, no reply within
/// command_timeout, not ready within connect_timeout) closes for good; every command not yet
/// answered fails, and later send()s fail at once (safe). A timed-out command closes the
/// connection, so a late reply is never read and a frozen server does not collect a queue.
///
/// Thread safety: every member on the strand only (construction and destruction included).
class redis_async_connection : public std::enable_shared_from_this<redis_async_connection> {
public:
    /// Starts connecting at once (resolve, TCP connect, handshake, all within connect_timeout).
    static std::shared_ptr<redis_async_connection> open(async_strand strand, const redis_options& options);
    ~redis_async_connection();
    redis_async_connection(const redis_async_connection&) = delete;
    redis_async_connection& operator=(const redis_async_connection&) = delete;

    /// Sends one command (binary-safe arguments); `what` names it in errors. `on_reply` is called
    /// exactly once, never inside this call.
    void send(const std::vector<std::string>& args, const char* what, reply_handler on_reply);
    /// True once the handshake is done: a command sent now goes on a connection already in use.
    bool ready() const noexcept { return state_ == state::ready; }
    /// True once the connection failed or was closed.
    bool closed() const noexcept { return state_ == state::closed; }
    /// True when the handshake ever finished (false: connecting failed).
    bool was_ready() const noexcept { return was_ready_; }
    /// When it closed (meaningful once closed()).
    std::chrono::steady_clock::time_point closed_at() const noexcept { return closed_at_; }
    /// Closes at once and drops every handler without calling it (the owner is going away).
    void shutdown();
    const std::string& where() const noexcept { return where_; }

private:
    enum class state { connecting, handshaking, ready, closed };
    struct request {
        std::vector<std::string> args;
        const char* what;
        reply_handler on_reply;
        std::chrono::steady_clock::time_point deadline;
    };

    redis_async_connection(async_strand strand, const redis_options& options);
    void start();
    void connect_to(const std::string& address);
    void on_connected(int status);
    void handshake();
    void handshake_step(const redisReply* reply, std::exception_ptr failure, const char* what);
    void become_ready();
    void submit(request r);
    void on_reply(const redisReply* reply);
    void fail_later(reply_handler on_reply, std::exception_ptr failure);
    std::exception_ptr failure_of(const char* what, bool sent) const;
    /// Closes the connection; commands not answered fail with `reason` (or `error` when given).
    void fail(const std::string& reason, std::exception_ptr error = nullptr);
    void on_context_gone();
    void mark_closed();
    /// True when the server closed the connection while nothing was awaited (checked before a write).
    bool closed_while_idle() const;

    // Asio side of hiredis's hooks.
    void update_read_wait();
    void drop_idle_read_wait();
    void wait_readable();
    void wait_writable();
    void on_readable(boost::system::error_code ec);
    void on_writable(boost::system::error_code ec);
    void arm_timer(std::chrono::steady_clock::time_point deadline);
    void check_deadlines();
    /// No reply awaited: no pending timer either (an idle connection holds no work).
    void disarm_timer();

    static void hook_add_read(void* self);
    static void hook_del_read(void* self);
    static void hook_add_write(void* self);
    static void hook_del_write(void* self);
    static void hook_cleanup(void* self);
    static void hook_connect(const redisAsyncContext* context, int status);
    static void hook_reply(redisAsyncContext* context, void* reply, void* self);

    // hiredis's reply constructors, wrapped: hiredis 0.14 asserts (aborts the process) on a reply
    // that no command awaits, so such a reply is refused (the reader fails, the connection closes).
    void guard_replies();
    bool accepts_reply(const redisReadTask* task);
    static void* reply_string(const redisReadTask* task, char* text, size_t length);
    static void* reply_array(const redisReadTask* task, int elements);
    static void* reply_integer(const redisReadTask* task, long long value);
    static void* reply_nil(const redisReadTask* task);

    async_strand strand_;
    const redis_options options_;
    const std::string where_;
    boost::asio::ip::tcp::resolver resolver_;
    boost::asio::posix::stream_descriptor socket_;  ///< hiredis owns the descriptor (released, never closed)
    boost::asio::steady_timer timer_;
    redisAsyncContext* context_ = nullptr;
    redisReplyObjectFunctions reply_functions_{};                   ///< the guarded constructors
    const redisReplyObjectFunctions* hiredis_functions_ = nullptr;  ///< hiredis's own
    state state_ = state::connecting;
    std::chrono::steady_clock::time_point connect_deadline_;
    std::deque<request> waiting_;    ///< sent before the handshake finished; not in hiredis yet
    std::deque<request> in_flight_;  ///< given to hiredis, answered in this order
    std::size_t written_ = 0;        ///< the first written_ of in_flight_ went out (or may have)
    int handshake_left_ = 0;
    bool want_read_ = false, want_write_ = false;
    bool read_waiting_ = false, write_waiting_ = false;
    bool timer_armed_ = false;
    bool in_write_ = false;
    bool drop_handlers_ = false;
    bool freeing_ = false;
    bool was_ready_ = false;
    std::chrono::steady_clock::time_point closed_at_{};  ///< redisAsyncFree is under way (or hiredis frees the context itself)
    std::string close_reason_;
    std::exception_ptr close_error_;
};

}  // namespace shedlock::providers::detail
