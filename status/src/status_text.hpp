#pragma once
// Text helpers of the status server: JSON and HTML escaping, secret redaction, times.

#include <shedlock/detail/json_text.hpp>
#include <shedlock/time.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace shedlock::detail {

/// `s` escaped for HTML text and attribute values, in well-formed UTF-8 (see well_formed_utf8).
std::string html_escape(std::string_view s);
/// Passwords in `scheme://user:password@host` replaced by `***`.
std::string redact_uri_passwords(std::string_view s);
/// "2026-11-30T21:00:00.000Z".
std::string iso_utc(timestamp t);
/// A duration as people read it, beside the ISO value: "850 ms", "3.5 s", "42 s", "2 min 5 s",
/// "1 h 2 min", "3 d 4 h" (two units at most, the smaller one truncated; "-" before a negative).
std::string readable_duration(std::chrono::milliseconds d);
/// `s` percent-encoded for a query value in a link (unreserved characters stay).
std::string query_value(std::string_view s);

}  // namespace shedlock::detail
