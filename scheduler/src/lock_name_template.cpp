#include "lock_name_template.hpp"

#include <shedlock/error.hpp>

#include <date/date.h>
#include <date/tz.h>

namespace shedlock::detail {

bool is_template(const std::string& name_template) { return name_template.find('{') != std::string::npos; }

std::string render_lock_name(const std::string& name_template, timestamp at, const date::time_zone& zone,
                             const std::string& env) {
    const auto local = zone.to_local(date::floor<std::chrono::seconds>(at));
    std::string out;
    std::size_t i = 0;
    while (i < name_template.size()) {
        if (name_template[i] != '{') {
            out += name_template[i++];
            continue;
        }
        const auto close = name_template.find('}', i);
        if (close == std::string::npos)
            throw configuration_error("lock name \"" + name_template + "\" has an unclosed '{'");
        const std::string key = name_template.substr(i + 1, close - i - 1);
        if (key == "date") out += date::format("%Y%m%d", local);
        else if (key == "datetime") out += date::format("%Y%m%dT%H%M%S", local);
        else if (key == "env") {
            if (env.empty())
                throw configuration_error("lock name \"" + name_template +
                                          "\" uses {env} but the scheduler has no env; set scheduler_options::env");
            out += env;
        } else {
            throw configuration_error("lock name \"" + name_template + "\" has unknown placeholder {" + key +
                                      "}; use {date}, {datetime} or {env}");
        }
        i = close + 1;
    }
    return out;
}

}  // namespace shedlock::detail
