// Public previews of a trigger: upcoming firing times and template rendering.
#include "lock_name_template.hpp"
#include "firing_times.hpp"

#include <shedlock/trigger.hpp>

namespace shedlock {

std::vector<timestamp> upcoming_firings(const trigger& t, timestamp now, std::size_t n) {
    const detail::firing_times plan(t);
    std::vector<timestamp> out;
    std::optional<timestamp> at = plan.first(now);
    while (at && out.size() < n) {
        out.push_back(*at);
        at = plan.after_completion() ? std::optional<timestamp>{*at + plan.delay()} : plan.next(*at);
    }
    return out;
}

std::string render_template(const std::string& text, const trigger& t, timestamp at, const std::string& env) {
    const detail::firing_times plan(t);
    return detail::render_lock_name(text, at, plan.zone(), env);
}

}  // namespace shedlock
