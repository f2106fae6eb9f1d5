#include "redis_run_codec.hpp"

#include <shedlock/error.hpp>

#include <charconv>
#include <limits>
#include <map>

namespace shedlock::providers::detail {
namespace {

std::string millis(timestamp t) { return std::to_string(t.time_since_epoch().count()); }

[[noreturn]] void malformed(const std::string& key, const std::string& what) {
    throw storage_error(storage_category::invalid_data, "Redis run-record stream \"" + key + "\" holds an entry with " +
                                                            what + "; was the key written by something else? Delete it.");
}

std::int64_t number(const std::map<std::string, std::string>& fields, const std::string& name, const std::string& key) {
    const auto it = fields.find(name);
    if (it == fields.end()) malformed(key, "no field \"" + name + "\"");
    std::int64_t value = 0;
    const auto& text = it->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty())
        malformed(key, "field " + name + "=\"" + text + "\", which is not an integer");
    return value;
}

}  // namespace

std::vector<std::string> encode_run_fields(const run_record& r) {
    return {"lock_name",    r.lock_name,
            "instance",     r.instance,
            "scheduled_at", millis(r.scheduled_at),
            "started_at",   millis(r.started_at),
            "finished_at",  millis(r.finished_at),
            "outcome",      std::string(to_string(r.outcome)),
            "fencing_token", r.fencing_token ? std::to_string(*r.fencing_token) : std::string(),
            "message",      r.message,
            "counters",     encode_counters(r.counters),
            "lock_lost",    r.lock_lost ? "1" : "0"};
}

run_record decode_run_entry(const redisReply& entry, const std::string& task, const std::string& key) {
    if (entry.type != REDIS_REPLY_ARRAY || entry.elements != 2 || entry.element[1]->type != REDIS_REPLY_ARRAY)
        malformed(key, "an unexpected shape");
    std::map<std::string, std::string> fields;
    const redisReply& pairs = *entry.element[1];
    for (std::size_t i = 0; i + 1 < pairs.elements; i += 2)
        fields[std::string(pairs.element[i]->str, pairs.element[i]->len)] =
            std::string(pairs.element[i + 1]->str, pairs.element[i + 1]->len);
    run_record r;
    r.task = task;
    r.lock_name = fields["lock_name"];
    r.instance = fields["instance"];
    r.scheduled_at = timestamp{std::chrono::milliseconds{number(fields, "scheduled_at", key)}};
    r.started_at = timestamp{std::chrono::milliseconds{number(fields, "started_at", key)}};
    r.finished_at = timestamp{std::chrono::milliseconds{number(fields, "finished_at", key)}};
    try {
        r.outcome = parse_run_outcome(fields["outcome"]);
    } catch (const configuration_error& e) {
        malformed(key, std::string("a bad outcome (") + e.what() + ")");
    }
    if (!fields["fencing_token"].empty()) r.fencing_token = number(fields, "fencing_token", key);
    r.message = fields["message"];
    r.counters = decode_counters(fields["counters"]);
    r.lock_lost = fields["lock_lost"] == "1";
    return r;
}

std::optional<std::string> previous_stream_id(std::string_view id) {
    const auto dash = id.find('-');
    std::uint64_t ms = 0, seq = 0;
    const auto ms_end = id.data() + (dash == std::string_view::npos ? id.size() : dash);
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == id.size() || std::from_chars(id.data(), ms_end, ms).ptr != ms_end ||
        std::from_chars(ms_end + 1, id.data() + id.size(), seq).ptr != id.data() + id.size())
        return std::nullopt;
    if (seq > 0) return std::to_string(ms) + "-" + std::to_string(seq - 1);
    if (ms == 0) return std::nullopt;
    return std::to_string(ms - 1) + "-" + std::to_string(std::numeric_limits<std::uint64_t>::max());
}

}  // namespace shedlock::providers::detail
