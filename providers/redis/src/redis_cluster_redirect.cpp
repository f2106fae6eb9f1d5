#include "redis_cluster_redirect.hpp"

#include <algorithm>
#include <thread>

namespace shedlock::providers::detail {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

/// "<slot> <host:port>" after MOVED or ASK.
std::optional<redirect> target_of(redirect_kind kind, std::string_view rest) {
    const auto space = rest.find(' ');
    if (space == std::string_view::npos || space == 0 || space > 5) return std::nullopt;
    const std::string_view slot = rest.substr(0, space);
    if (slot.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    const int number = std::stoi(std::string(slot));
    if (number >= static_cast<int>(cluster_slot_count)) return std::nullopt;
    auto node = parse_cluster_address(rest.substr(space + 1));
    if (!node) return std::nullopt;
    return redirect{kind, static_cast<std::uint16_t>(number), std::move(*node)};
}

}  // namespace

std::optional<redirect> redirect_of(const redisReply& reply) {
    if (reply.type != REDIS_REPLY_ERROR) return std::nullopt;
    const std::string_view text(reply.str, reply.len);
    if (starts_with(text, "MOVED ")) return target_of(redirect_kind::moved, text.substr(6));
    if (starts_with(text, "ASK ")) return target_of(redirect_kind::ask, text.substr(4));
    if (starts_with(text, "TRYAGAIN") || starts_with(text, "CLUSTERDOWN")) return redirect{redirect_kind::retry, 0, {}};
    return std::nullopt;
}

storage_error too_many_redirects(const redisReply& last, const char* what, const std::string& where, int bound) {
    return storage_error(storage_category::unavailable, retry_advice::safe,
                         where + " redirected " + what + " " + std::to_string(bound) + " times (last: \"" +
                             std::string(last.str, last.len) +
                             "\"); nothing was applied; the cluster is resharding or failing over: retry later, "
                             "or raise max_redirects (at most 16)");
}

void wait_before_retry(int hop) {
    std::this_thread::sleep_for(std::chrono::milliseconds{50} * (1 << std::min(hop, 4)));
}

}  // namespace shedlock::providers::detail
