// Finding the primary through Redis Sentinel, on every new connection (redis_connection).
#include "redis_sentinel.hpp"

#include "redis_connection.hpp"

#include <shedlock/error.hpp>

namespace shedlock::providers::detail {
namespace {

std::string sentinel_name(const redis_sentinel_address& s) { return s.host + ":" + std::to_string(s.port); }

/// The address a sentinel gave, or empty with `why` set (down, refused, does not know it).
std::optional<sentinel_answer> ask_one(const redis_options& o, const redis_sentinel_address& s, std::string& why,
                                       bool& reached, bool& unknown) {
    reached = true;
    try {
        redis_connection sentinel(sentinel_connection_options(o, s));
        auto reply = sentinel.checked({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", o.sentinel_master},
                                      "SENTINEL GET-MASTER-ADDR-BY-NAME");
        if (reply->type == REDIS_REPLY_NIL) {
            unknown = true;
            why = "does not monitor a master named \"" + o.sentinel_master + "\"";
            return std::nullopt;
        }
        const bool pair = reply->type == REDIS_REPLY_ARRAY && reply->elements == 2 &&
                          reply->element[0]->type == REDIS_REPLY_STRING && reply->element[1]->type == REDIS_REPLY_STRING;
        const std::string port = pair ? std::string(reply->element[1]->str, reply->element[1]->len) : std::string();
        if (!pair || port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(port) < 1 || std::stoi(port) > 65535) {
            why = "answered something other than an address";
            return std::nullopt;
        }
        return sentinel_answer{std::string(reply->element[0]->str, reply->element[0]->len),
                               static_cast<std::uint16_t>(std::stoi(port)), sentinel_name(s)};
    } catch (const storage_error& e) {
        if (e.category() == storage_category::unavailable) why = "not reachable within connect_timeout";
        else if (e.category() == storage_category::access_denied) why = "refused sentinel_user/sentinel_password";
        else why = e.what();
        reached = e.category() != storage_category::unavailable;
        return std::nullopt;
    }
}

}  // namespace

sentinel_answer ask_sentinels(const redis_options& o) {
    std::string answers;
    int reached_count = 0, unknown_count = 0;
    for (const auto& s : o.sentinels) {
        std::string why;
        bool reached = false, unknown = false;
        if (auto found = ask_one(o, s, why, reached, unknown)) return *found;
        reached_count += reached ? 1 : 0;
        unknown_count += unknown ? 1 : 0;
        answers += (answers.empty() ? "" : "; ") + sentinel_name(s) + ": " + why;
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
