#pragma once
// One synchronous hiredis connection with connect and command timeouts.

#include <shedlock/providers/redis_lock_provider.hpp>

#include <shedlock/lock_inspector.hpp>

#include <hiredis/hiredis.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

struct reply_deleter {
    void operator()(redisReply* reply) const noexcept { freeReplyObject(reply); }
};
/// An owned reply; never null.
using reply_ptr = std::unique_ptr<redisReply, reply_deleter>;

/// "Redis at host:port/db" (or the Sentinel master's name and sentinels) for messages, no credentials.
std::string describe_server(const redis_options& options);

/// An open, authenticated connection on the selected database. With sentinels in the options,
/// the primary is asked of them first and must answer ROLE as master (redis_sentinel.hpp).
///
/// Failure: connecting throws storage_error (unavailable, or access_denied for credentials).
/// An I/O failure or timeout during a command throws storage_error(unavailable) and marks the
/// connection broken: a late reply could otherwise be read as the answer to the next command.
/// Retry advice: safe when nothing was sent (connecting, a connection the server closed while it
/// idled, found before sending), in doubt once commands were sent and their replies not read.
/// Error replies are returned, not thrown; callers decide (NOSCRIPT is not an error for them).
class redis_connection {
public:
    explicit redis_connection(const redis_options& options);
    virtual ~redis_connection();
    redis_connection(const redis_connection&) = delete;
    redis_connection& operator=(const redis_connection&) = delete;

    /// Sends one command (binary-safe arguments) and returns its reply. `what` names it in errors.
    reply_ptr command(const std::vector<std::string_view>& args, const char* what);
    /// Sends all commands in one write and reads their replies in order.
    /// Virtual: a Redis Cluster connection (redis_cluster_connection.hpp) routes each command.
    virtual std::vector<reply_ptr> pipeline(const std::vector<std::vector<std::string_view>>& commands,
                                            const char* what);
    /// Like command() but throws the classified storage_error for an error reply.
    reply_ptr checked(const std::vector<std::string_view>& args, const char* what);

    /// Every reply from now on must be complete by `deadline`, not only each read within the
    /// socket timeout: a server that trickles a byte at a time would otherwise hold one reply
    /// forever. Used for a sentinel's answer and for the handshake (both count as connecting).
    void answer_by(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }

    bool broken() const noexcept { return broken_; }
    const std::string& where() const noexcept { return where_; }

    /// Calls `fn` with a connection to each primary that holds keys: this one on a single server,
    /// every primary of a Redis Cluster (SCAN must visit each).
    virtual void for_each_primary(const std::function<void(redis_connection&)>& fn) { fn(*this); }
    /// What the server topology means for locks (`shedlock doctor`); a single server: nothing.
    virtual std::vector<topology_note> topology_notes() { return {}; }

protected:
    /// For a connection that opens no socket of its own (a cluster's router); `where` names it.
    explicit redis_connection(std::string where) : where_(std::move(where)) {}

private:
    /// Connects to options.host:port and runs the handshake (and ROLE with must_be_primary).
    void open(const redis_options& options, bool must_be_primary);
    void handshake(const redis_options& options);
    /// Throws storage_error(unavailable, safe) unless ROLE says master.
    void check_primary();
    /// `sent`: the commands went out before the failure (their effect is in doubt).
    [[noreturn]] void fail_io(const char* what, bool sent);
    /// redisGetReply, but against deadline_ when one is set (then a timeout sets EAGAIN).
    int read_reply(void** reply);
    /// Throws (safe to retry) when the server closed the connection while it idled.
    void check_still_open(const char* what);

    redisContext* context_ = nullptr;
    std::string where_;
    bool broken_ = false;
    std::optional<std::chrono::steady_clock::time_point> deadline_;
    bool connected_ = false;  ///< the handshake is done: a failure from now on is a command's
};

}  // namespace shedlock::providers::detail
