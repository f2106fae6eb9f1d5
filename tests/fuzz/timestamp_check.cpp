// parse_timestamp reads stored lock times: it rejects with storage_error(invalid_data) only, and
// what it accepts is a real time of day that format_timestamp writes back as the same instant.
// Inputs of 8 bytes or more also become a time of their own (years 0000-9999, the range every
// backend's column holds) that must survive format_timestamp -> parse_timestamp.
#include "fuzz_check.hpp"

#include <shedlock/error.hpp>
#include <shedlock/time.hpp>

#include <cstdint>
#include <cstring>

namespace shedlock::fuzz {
namespace {

using namespace std::chrono;

const timestamp earliest{sys_days{year{0} / January / 1}};
const timestamp latest{sys_days{year{9999} / December / 31} + hours{24} - milliseconds{1}};

/// format_timestamp(t) parses back to t; `origin` says where t came from (built on failure only).
template <typename Origin>
void expect_round_trip(timestamp t, Origin origin) {
    const std::string text = format_timestamp(t);
    timestamp again{};
    try {
        again = parse_timestamp(text);
    } catch (const storage_error& e) {
        throw violation(origin() + ": format_timestamp wrote \"" + text + "\", which does not parse: " + e.what());
    }
    expect(again == t, [&] {
        return origin() + ": \"" + text + "\" parses to " + std::to_string(again.time_since_epoch().count()) +
               " ms, not " + std::to_string(t.time_since_epoch().count());
    });
}

void check_text(std::string_view input) {
    timestamp t{};
    try {
        t = parse_timestamp(std::string(input));
    } catch (const storage_error& e) {
        expect(e.category() == storage_category::invalid_data,
               [&] { return "storage_error of category " + std::string(to_string(e.category())); });
        return;
    }
    const auto origin = [&] { return "parse_timestamp(\"" + shown(input) + "\")"; };
    expect(t >= earliest && t <= latest, [&] {
        return origin() + " = " + std::to_string(t.time_since_epoch().count()) + " ms, outside years 0000-9999";
    });
    expect_round_trip(t, origin);
}

void check_instant(std::string_view input) {
    if (input.size() < sizeof(std::int64_t)) return;
    std::int64_t raw = 0;
    std::memcpy(&raw, input.data(), sizeof raw);
    const std::int64_t span = (latest - earliest).count() + 1;
    const auto t = earliest + milliseconds{(raw % span + span) % span};
    expect_round_trip(t, [&] { return "instant " + std::to_string(t.time_since_epoch().count()) + " ms"; });
}

void check_timestamp(std::string_view input) {
    check_text(input);
    check_instant(input);
}

[[maybe_unused]] const bool registered = register_check("timestamp", check_timestamp);

}  // namespace
}  // namespace shedlock::fuzz
