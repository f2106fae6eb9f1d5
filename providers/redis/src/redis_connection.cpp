#include "redis_connection.hpp"

#include "redis_errors.hpp"

#include <poll.h>
#include <sys/time.h>

#include <cerrno>

namespace shedlock::providers::detail {
namespace {

timeval to_timeval(std::chrono::milliseconds d) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(d.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((d.count() % 1000) * 1000);
    return tv;
}

int append(redisContext* context, const std::vector<std::string_view>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    argv.reserve(args.size());
    lengths.reserve(args.size());
    for (auto a : args) {
        argv.push_back(a.data());
        lengths.push_back(a.size());
    }
    return redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data());
}

}  // namespace

std::string describe_server(const redis_options& options) {
    return "Redis at " + options.host + ":" + std::to_string(options.port) + "/" + std::to_string(options.db);
}

redis_connection::redis_connection(const redis_options& options) : where_(describe_server(options)) {
    context_ = redisConnectWithTimeout(options.host.c_str(), options.port, to_timeval(options.connect_timeout));
    if (context_ == nullptr)
        throw io_error("out of memory creating the connection", "a connection", where_, retry_advice::safe);
    if (context_->err != 0) {
        const std::string detail = context_->errstr;
        redisFree(context_);
        throw io_error(detail, "a connection within connect_timeout=" + std::to_string(options.connect_timeout.count()) + "ms",
                       where_, retry_advice::safe);
    }
    try {
        // The handshake counts as connecting: a server that accepts but never answers fails
        // within connect_timeout, not connect_timeout + command_timeout.
        redisSetTimeout(context_, to_timeval(options.connect_timeout));
        handshake(options);
        redisSetTimeout(context_, to_timeval(options.command_timeout));
        redisEnableKeepAlive(context_);
        connected_ = true;
    } catch (...) {
        redisFree(context_);
        throw;
    }
}

redis_connection::~redis_connection() {
    if (context_ != nullptr) redisFree(context_);
}

void redis_connection::handshake(const redis_options& options) {
    if (options.password) {
        if (options.user.empty()) checked({"AUTH", *options.password}, "AUTH");
        else checked({"AUTH", options.user, *options.password}, "AUTH (ACL user)");
    }
    if (options.db != 0) {
        const std::string db = std::to_string(options.db);
        checked({"SELECT", db}, "SELECT");
    }
}

void redis_connection::fail_io(const char* what, bool sent) {
    broken_ = true;
    const bool timed_out = context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
    throw io_error(timed_out ? std::string("timed out: command_timeout") : std::string(context_->errstr), what, where_,
                   sent && connected_ ? retry_advice::in_doubt : retry_advice::safe);
}

// Redis sends nothing unasked on these connections (no subscriptions): anything readable while
// idle is the end of the stream (a restart, CLIENT KILL, the server's idle timeout).
void redis_connection::check_still_open(const char* what) {
    pollfd idle{context_->fd, POLLIN, 0};
    if (!connected_ || idle.fd < 0 || ::poll(&idle, 1, 0) <= 0) return;
    broken_ = true;
    throw io_error("the server closed the connection while it idled; not sent", what, where_, retry_advice::safe);
}

reply_ptr redis_connection::command(const std::vector<std::string_view>& args, const char* what) {
    auto replies = pipeline({args}, what);
    return std::move(replies.front());
}

std::vector<reply_ptr> redis_connection::pipeline(const std::vector<std::vector<std::string_view>>& commands,
                                                  const char* what) {
    if (broken_) throw io_error("connection already broken", what, where_, retry_advice::safe);
    check_still_open(what);
    for (const auto& args : commands)
        if (append(context_, args) != REDIS_OK) fail_io(what, false);  // only buffered so far
    std::vector<reply_ptr> replies;
    replies.reserve(commands.size());
    for (std::size_t i = 0; i < commands.size(); ++i) {
        void* raw = nullptr;
        if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) fail_io(what, true);
        replies.emplace_back(static_cast<redisReply*>(raw));
    }
    return replies;
}

reply_ptr redis_connection::checked(const std::vector<std::string_view>& args, const char* what) {
    auto reply = command(args, what);
    if (reply->type == REDIS_REPLY_ERROR) throw reply_error({reply->str, reply->len}, what, where_);
    return reply;
}

}  // namespace shedlock::providers::detail
