#pragma once
// A run record as the field/value pairs of a stream entry, and back (private).

#include <shedlock/run_store.hpp>

#include <hiredis/hiredis.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shedlock::providers::detail {

/// The entry's fields and values, alternating: times as milliseconds since the epoch, the
/// fencing token as a number or "", counters as encode_counters text, lock_lost as 0/1.
std::vector<std::string> encode_run_fields(const run_record& record);

/// The record in one XRANGE/XREVRANGE entry (`[id, [field, value, ...]]`) of `task`'s stream
/// `key`. Unknown fields are ignored; a missing or malformed one throws storage_error(invalid_data)
/// naming the key and the field.
run_record decode_run_entry(const redisReply& entry, const std::string& task, const std::string& key);

/// The stream ID just before `id` (`<ms>-<seq>`), to read on below it in the next XREVRANGE page
/// (the exclusive `(id` form needs Redis 6.2); nullopt when `id` is the smallest ID or malformed.
std::optional<std::string> previous_stream_id(std::string_view id);

}  // namespace shedlock::providers::detail
