// parse_duration: rejects with configuration_error only; what it accepts stays within
// max_duration, and format_duration writes text that parses back to the same value.
#include "fuzz_check.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>

namespace shedlock::fuzz {
namespace {

void check_round_trip(std::chrono::milliseconds d, std::string_view input) {
    const std::string text = format_duration(d);
    std::chrono::milliseconds again{};
    try {
        again = parse_duration(text);
    } catch (const configuration_error& e) {
        throw violation("format_duration(parse_duration(\"" + shown(input) + "\")) = \"" + text +
                        "\" does not parse: " + e.what());
    }
    expect(again == d, [&] {
        return "\"" + shown(input) + "\" -> " + std::to_string(d.count()) + " ms -> \"" + text + "\" -> " +
               std::to_string(again.count()) + " ms";
    });
}

void check_duration(std::string_view input) {
    std::chrono::milliseconds d{};
    try {
        d = parse_duration(input, "fuzz_field");
    } catch (const configuration_error& e) {
        expect(std::string_view(e.what()).find("fuzz_field") != std::string_view::npos,
               [&] { return "the message does not name the field: " + shown(e.what()); });
        return;
    }
    expect(d <= max_duration && d >= -max_duration,
           [&] { return "\"" + shown(input) + "\" -> " + std::to_string(d.count()) + " ms, beyond max_duration"; });
    check_round_trip(d, input);
}

[[maybe_unused]] const bool registered = register_check("duration", check_duration);

}  // namespace

}  // namespace shedlock::fuzz
