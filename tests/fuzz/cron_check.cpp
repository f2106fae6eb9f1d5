// cron_expression::parse and next(). Input: the expression, then optionally a zone name and a
// start time (parse_timestamp's format) on the following lines. Parse errors must be
// configuration_error; next() must move strictly forward, land on whole seconds within the
// 100-year horizon, and be stable: next(r - 1s) == r for a result r.
#include "fuzz_check.hpp"

#include <shedlock/cron_expression.hpp>
#include <shedlock/error.hpp>

#include <vector>

namespace shedlock::fuzz {
namespace {

using namespace std::chrono;

constexpr int firings_followed = 2;  // more costs exec/s on expressions that never match
constexpr auto horizon = days{366 * 100} + seconds{1};

std::vector<std::string_view> lines(std::string_view input, std::size_t n) {
    std::vector<std::string_view> out;
    while (out.size() + 1 < n) {
        const auto end = input.find('\n');
        if (end == std::string_view::npos) break;
        out.push_back(input.substr(0, end));
        input.remove_prefix(end + 1);
    }
    out.push_back(input);
    return out;
}

/// The start time from the text, kept within the years a stored time can have.
timestamp start_time(const std::vector<std::string_view>& parts) {
    const timestamp fallback{sys_days{year{2024} / March / 31} + hours{1}};
    if (parts.size() < 3) return fallback;
    try {
        const timestamp t = parse_timestamp(std::string(parts[2]));
        const bool stored_range = t >= sys_days{year{0} / 1 / 1} && t < sys_days{year{10000} / 1 / 1};
        return stored_range ? t : fallback;
    } catch (const storage_error&) {
        return fallback;
    }
}

std::string at(timestamp t) { return std::to_string(t.time_since_epoch().count()) + " ms"; }

void check_firings(const cron_expression& cron, const date::time_zone& zone, timestamp after, std::string_view input) {
    timestamp t = after;
    for (int i = 0; i < firings_followed; ++i) {
        const auto next = cron.next(t, zone);
        if (!next) return;
        const auto step = [&] { return "\"" + shown(input) + "\": next(" + at(t) + ") = " + at(*next); };
        expect(!cron.disabled(), [&] { return step() + " for a disabled expression"; });
        expect(*next > t, [&] { return step() + ": not after the start"; });
        expect(*next - t <= horizon, [&] { return step() + ": beyond the 100-year horizon"; });
        expect(floor<seconds>(*next) == *next, [&] { return step() + ": not a whole second"; });
        if (i == 0) {
            const auto again = cron.next(*next - seconds{1}, zone);
            expect(again == next, [&] {
                return step() + ", but next(" + at(*next - seconds{1}) + ") = " + (again ? at(*again) : "none");
            });
        }
        t = *next;
    }
}

void check_cron(std::string_view input) {
    const auto parts = lines(input, 3);
    std::optional<cron_expression> cron;
    try {
        cron = cron_expression::parse(parts[0]);
    } catch (const configuration_error&) {
        return;
    }
    const date::time_zone* zone = nullptr;
    try {
        // An empty name means the host's zone; the fuzzer must not depend on the host.
        zone = &locate_time_zone(parts.size() > 1 && !parts[1].empty() ? parts[1] : "UTC");
    } catch (const configuration_error&) {
        return;
    }
    check_firings(*cron, *zone, start_time(parts), input);
}

[[maybe_unused]] const bool registered = register_check("cron", check_cron);

}  // namespace
}  // namespace shedlock::fuzz
