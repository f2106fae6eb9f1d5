#include "redis_connection.hpp"

#include "redis_errors.hpp"
#include "redis_sentinel.hpp"

#include <poll.h>
#include <sys/time.h>

#include <cerrno>
#include <exception>
#include <cstdio>

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
    if (!options.sentinels.empty())
        return "Redis primary \"" + options.sentinel_master + "\" (Sentinel " + describe_sentinels(options) + ")/" +
               std::to_string(options.db);
    return "Redis at " + options.host + ":" + std::to_string(options.port) + "/" + std::to_string(options.db);
}

redis_connection::redis_connection(const redis_options& options) : where_(describe_server(options)) {
    if (options.sentinels.empty()) {
        open(options, false);
        return;
    }
    // Discovery on every new connection: after a failover the pool's replacements reach the
    // new primary, and ROLE refuses a stale answer (a demoted primary still listed).
    // A stale sentinel (one cut off from the others still names the demoted primary) must not
    // stop every connection while the next sentinel names the real one: an answer that is not
    // a reachable primary passes the turn on; the first such failure is the one reported.
    std::exception_ptr first_failure;
    for (std::size_t from = 0; from < options.sentinels.size();) {
        sentinel_answer found;
        try {
            found = ask_sentinels(options, from);
        } catch (const storage_error&) {
            if (first_failure) std::rethrow_exception(first_failure);
            throw;
        }
        where_ = "Redis primary \"" + options.sentinel_master + "\" at " + found.host + ":" + std::to_string(found.port) +
                 "/" + std::to_string(options.db) + " (named by sentinel " + found.sentinel + ")";
        try {
            open(primary_options(options, found), true);
            return;
        } catch (const storage_error& e) {
            if (e.category() != storage_category::unavailable) throw;
            if (!first_failure) first_failure = std::current_exception();
        }
        from = found.index + 1;
    }
    std::rethrow_exception(first_failure);
}

void redis_connection::open(const redis_options& options, bool must_be_primary) {
    // connect_timeout bounds the connect and the handshake together, not each step.
    answer_by(std::chrono::steady_clock::now() + options.connect_timeout);
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
        if (must_be_primary) check_primary();
        redisSetTimeout(context_, to_timeval(options.command_timeout));
        deadline_.reset();
        redisEnableKeepAlive(context_);
        connected_ = true;
    } catch (...) {
        redisFree(context_);
        throw;
    }
}

void redis_connection::check_primary() {
    const auto reply = command({"ROLE"}, "ROLE");
    if (reply->type == REDIS_REPLY_ERROR) {
        const std::string_view text(reply->str, reply->len);
        // An ACL user without +role: the check is skipped; a replica's READONLY on the first
        // write then breaks this connection the same way (docs/redis-provider.md, Sentinel).
        if (classify_reply_error(text) == storage_category::access_denied && text.find("NOPERM") != text.npos) return;
        throw reply_error(text, "ROLE", where_);
    }
    const bool array = reply->type == REDIS_REPLY_ARRAY && reply->elements > 0 &&
                       reply->element[0]->type == REDIS_REPLY_STRING;
    const std::string role = array ? std::string(reply->element[0]->str, reply->element[0]->len) : "(no role)";
    if (role == "master") return;
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        where_ + " answers ROLE \"" + role +
                            "\", not master: the sentinel's answer is stale or a failover is under way; this "
                            "connection is not used and the next one asks the sentinels again");
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
        if (read_reply(&raw) != REDIS_OK || raw == nullptr) fail_io(what, true);
        replies.emplace_back(static_cast<redisReply*>(raw));
        const redisReply& r = *replies.back();
        // A demoted primary (READONLY) or a replica cut off (MASTERDOWN): never reuse this
        // connection, so the pool's replacement rediscovers the primary.
        if (r.type == REDIS_REPLY_ERROR && demoted_node_reply({r.str, r.len})) broken_ = true;
    }
    return replies;
}

int redis_connection::read_reply(void** reply) {
    if (!deadline_) return redisGetReply(context_, reply);
    for (int done = 0; !done;)
        if (redisBufferWrite(context_, &done) != REDIS_OK) return REDIS_ERR;
    while (true) {
        if (redisReaderGetReply(context_->reader, reply) != REDIS_OK) {
            context_->err = context_->reader->err;
            std::snprintf(context_->errstr, sizeof context_->errstr, "%s", context_->reader->errstr);
            return REDIS_ERR;
        }
        if (*reply != nullptr) return REDIS_OK;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - std::chrono::steady_clock::now());
        pollfd readable{context_->fd, POLLIN, 0};
        if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) == 0) {
            context_->err = REDIS_ERR_IO;
            errno = EAGAIN;  // fail_io reports a timeout
            return REDIS_ERR;
        }
        if (redisBufferRead(context_) != REDIS_OK) return REDIS_ERR;
    }
}

reply_ptr redis_connection::checked(const std::vector<std::string_view>& args, const char* what) {
    auto reply = command(args, what);
    if (reply->type == REDIS_REPLY_ERROR) throw reply_error({reply->str, reply->len}, what, where_);
    return reply;
}

}  // namespace shedlock::providers::detail
