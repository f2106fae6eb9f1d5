#include "lock_name_template.hpp"

#include <shedlock/error.hpp>

#include <date/date.h>
#include <date/tz.h>

namespace shedlock::detail {

bool is_template(const std::string& name_template) { return name_template.find('{') != std::string::npos; }

bool renders_by_time(const std::string& name_template) {
    return name_template.find("{date}") != std::string::npos || name_template.find("{datetime}") != std::string::npos;
}

namespace {

/// Whether `name` starts with what `placeholder` renders to; removes it from `name` if so.
bool take_placeholder(std::string_view placeholder, std::string_view& name, std::string_view env) {
    const auto digits = [&name](std::size_t from, std::size_t n) {
        for (std::size_t i = from; i < from + n; ++i)
            if (name[i] < '0' || name[i] > '9') return false;
        return true;
    };
    std::size_t length = 0;
    if (placeholder == "date") {
        length = 8;
        if (name.size() < length || !digits(0, 8)) return false;
    } else if (placeholder == "datetime") {
        length = 15;
        if (name.size() < length || !digits(0, 8) || name[8] != 'T' || !digits(9, 6)) return false;
    } else if (placeholder == "env") {
        length = env.size();
        if (env.empty() || name.substr(0, length) != env) return false;
    } else {
        return false;
    }
    name.remove_prefix(length);
    return true;
}

}  // namespace

bool is_rendered_from(std::string_view name_template, std::string_view name, std::string_view env) {
    while (!name_template.empty()) {
        const auto open = name_template.find('{');
        const auto literal = name_template.substr(0, open);
        if (name.substr(0, literal.size()) != literal) return false;
        name.remove_prefix(literal.size());
        if (open == std::string_view::npos) break;
        const auto close = name_template.find('}', open);
        if (close == std::string_view::npos) return false;
        if (!take_placeholder(name_template.substr(open + 1, close - open - 1), name, env)) return false;
        name_template.remove_prefix(close + 1);
    }
    return name.empty();
}

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
