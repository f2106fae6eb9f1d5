// Finding the primary through Redis Sentinel, on every new connection (redis_connection).
#include "redis_sentinel.hpp"

#include "redis_connection.hpp"

#include <shedlock/error.hpp>

#include <algorithm>
#include <chrono>

namespace shedlock::providers::detail {
namespace {

std::string sentinel_name(const redis_sentinel_address& s) { return s.host + ":" + std::to_string(s.port); }

/// "host", "port" as GET-MASTER-ADDR-BY-NAME answers them; empty for anything else.
std::optional<sentinel_answer> address_of(const redisReply& reply, const std::string& sentinel) {
    const bool pair = reply.type == REDIS_REPLY_ARRAY && reply.elements == 2 &&
                      reply.element[0]->type == REDIS_REPLY_STRING && reply.element[1]->type == REDIS_REPLY_STRING;
    if (!pair) return std::nullopt;
    // A host name is at most 253 bytes and has no spaces or control bytes; anything else is not
    // an address (and would be copied into every message, or cut at a NUL by the connect).
    const std::string_view host(reply.element[0]->str, reply.element[0]->len);
    const bool odd_host = host.empty() || host.size() > 253 || std::any_of(host.begin(), host.end(), [](char c) {
                              const auto u = static_cast<unsigned char>(c);
                              return u <= 0x20 || u == 0x7f;
                          });
    if (odd_host) return std::nullopt;
    const std::string port(reply.element[1]->str, reply.element[1]->len);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(port) < 1 || std::stoi(port) > 65535)
        return std::nullopt;
    return sentinel_answer{std::string(reply.element[0]->str, reply.element[0]->len),
                           static_cast<std::uint16_t>(std::stoi(port)), sentinel};
}

}  // namespace

sentinel_reply ask_sentinel(const redis_options& o, const redis_sentinel_address& s) {
    sentinel_reply out;
    // One connect_timeout for the whole exchange (connect, AUTH, the query), even against a
    // sentinel that answers each step just in time or trickles its reply.
    const auto deadline = std::chrono::steady_clock::now() + o.connect_timeout;
    try {
        redis_connection sentinel(sentinel_connection_options(o, s));
        sentinel.answer_by(deadline);
        auto reply = sentinel.checked({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", o.sentinel_master},
                                      "SENTINEL GET-MASTER-ADDR-BY-NAME");
        out.reached = true;
        out.unknown = reply->type == REDIS_REPLY_NIL;
        out.address = address_of(*reply, sentinel_name(s));
        if (out.unknown) out.why = "does not monitor a master named \"" + o.sentinel_master + "\"";
        else if (!out.address) out.why = "answered something other than an address";
    } catch (const storage_error& e) {
        out.reached = e.category() != storage_category::unavailable;
        if (!out.reached) out.why = "not reachable within connect_timeout";
        else if (e.category() == storage_category::access_denied) out.why = "refused sentinel_user/sentinel_password";
        else out.why = e.what();
    }
    return out;
}

sentinel_answer ask_sentinels(const redis_options& o) {
    std::string answers;
    int reached_count = 0, unknown_count = 0;
    for (const auto& s : o.sentinels) {
        auto reply = ask_sentinel(o, s);
        if (reply.address) return *reply.address;
        reached_count += reply.reached ? 1 : 0;
        unknown_count += reply.unknown ? 1 : 0;
        answers += (answers.empty() ? "" : "; ") + sentinel_name(s) + ": " + reply.why;
    }
    const std::string head = "no Redis Sentinel named a primary for master \"" + o.sentinel_master + "\" (" + answers + "); ";
    // Every sentinel that answered says it does not know the name: a typo, not an outage.
    if (reached_count > 0 && unknown_count == reached_count)
        throw storage_error(storage_category::misconfigured, retry_advice::permanent,
                            head + "check the master name in the URI against `SENTINEL MASTERS` on a sentinel");
    throw storage_error(storage_category::unavailable, retry_advice::safe,
                        head + "check that the sentinels run and are reachable (and sentinel_password if they "
                               "require one); the next connection asks again");
}

}  // namespace shedlock::providers::detail
