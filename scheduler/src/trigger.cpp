#include <shedlock/duration.hpp>
#include <shedlock/trigger.hpp>

namespace shedlock {

std::string trigger::describe() const {
    switch (kind) {
        case trigger_kind::cron:
            return "cron(\"" + expression + "\"" + (zone.empty() ? "" : ", " + zone) + ")";
        case trigger_kind::fixed_rate:
            return std::string(aligned ? "aligned_rate(" : "fixed_rate(") + format_duration(period) +
                   (initial_delay.count() ? ", " + format_duration(initial_delay) : "") + ")";
        case trigger_kind::fixed_delay:
            return "fixed_delay(" + format_duration(period) +
                   (initial_delay.count() ? ", " + format_duration(initial_delay) : "") + ")";
    }
    return "trigger";
}

trigger cron(std::string expression, std::string zone) {
    trigger t;
    t.kind = trigger_kind::cron;
    t.expression = std::move(expression);
    t.zone = std::move(zone);
    return t;
}

trigger fixed_rate(std::chrono::milliseconds period, std::chrono::milliseconds initial_delay) {
    trigger t;
    t.kind = trigger_kind::fixed_rate;
    t.period = period;
    t.initial_delay = initial_delay;
    return t;
}

trigger aligned_rate(std::chrono::milliseconds period, std::chrono::milliseconds phase) {
    trigger t = fixed_rate(period, phase);
    t.aligned = true;
    return t;
}

trigger fixed_delay(std::chrono::milliseconds delay, std::chrono::milliseconds initial_delay) {
    trigger t;
    t.kind = trigger_kind::fixed_delay;
    t.period = delay;
    t.initial_delay = initial_delay;
    return t;
}

}  // namespace shedlock
