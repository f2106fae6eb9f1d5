// Lock-name templates ({date}, {datetime}, {env}), rendered at a few instants and zones (DST
// edges, far years). Errors must be configuration_error. A rendered name keeps no '{' (every
// brace opened a known placeholder), a template without '{' renders as itself, and the public
// render_template agrees with the private renderer, and is_rendered_from recognises the result.
#include "fuzz_check.hpp"

#include "lock_name_template.hpp"

#include <shedlock/cron_expression.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/trigger.hpp>

#include <array>

namespace shedlock::fuzz {
namespace {

using namespace std::chrono;

struct rendering {
    const char* zone_name;
    timestamp at;
    const char* env;
    const date::time_zone* zone = nullptr;  ///< looked up once, before the first input
};

std::array<rendering, 4> renderings{{
    {"UTC", timestamp{sys_days{year{2024} / June / 1} + hours{2}}, "prod"},
    {"Europe/Berlin", timestamp{sys_days{year{2024} / October / 27} + minutes{30}}, ""},  // fall-back hour
    {"Pacific/Kiritimati", timestamp{sys_days{year{9999} / December / 31} + hours{23}}, "e"},
    {"America/Sao_Paulo", timestamp{sys_days{year{1900} / January / 1} - milliseconds{1}}, "staging"},
}};

void look_up_zones() {
    for (auto& r : renderings) r.zone = &locate_time_zone(r.zone_name);
}

/// False when the template was rejected.
bool check_rendering(const std::string& name_template, const rendering& r, bool via_trigger) {
    const auto what = [&] { return "\"" + shown(name_template) + "\" in " + r.zone_name; };
    std::string rendered;
    try {
        rendered = detail::render_lock_name(name_template, r.at, *r.zone, r.env);
    } catch (const configuration_error&) {
        expect(detail::is_template(name_template), [&] { return what() + ": a plain name was rejected"; });
        return false;
    }
    expect(rendered.find('{') == std::string::npos,
           [&] { return what() + " rendered with a '{': \"" + shown(rendered) + "\""; });
    if (!detail::is_template(name_template))
        expect(rendered == name_template,
               [&] { return what() + " is no template but rendered as \"" + shown(rendered) + "\""; });
    // The scheduler's sweep deletes expired records of the names it recognises: one it missed
    // would stay forever.
    expect(detail::is_rendered_from(name_template, rendered, r.env),
           [&] { return what() + ": is_rendered_from does not recognise \"" + shown(rendered) + "\""; });
    if (via_trigger) {
        const std::string public_rendered =
            render_template(name_template, cron("0 0 * * * *", r.zone_name), r.at, r.env);
        expect(public_rendered == rendered, [&] {
            return what() + ": render_template gave \"" + shown(public_rendered) + "\", not \"" + shown(rendered) + "\"";
        });
    }
    try {
        validate_lock_name(rendered);
    } catch (const configuration_error&) {
        // Too long or not UTF-8: the scheduler reports it at the firing; not this target's concern.
    }
    return true;
}

void check_lock_name_template(std::string_view input) {
    const std::string name_template(input);
    // Rejection depends on the text and the env only, and the first rendering has an env: a
    // template it rejects is rejected everywhere. The public path (a trigger built per call) is
    // taken once: it adds only the trigger's zone lookup.
    if (!check_rendering(name_template, renderings[0], false)) return;
    for (std::size_t i = 1; i < renderings.size(); ++i) check_rendering(name_template, renderings[i], i == 1);
}

[[maybe_unused]] const bool registered = register_check("lock_name_template", check_lock_name_template, look_up_zones);

}  // namespace
}  // namespace shedlock::fuzz
