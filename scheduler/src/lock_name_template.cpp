#include "lock_name_template.hpp"

#include <shedlock/error.hpp>

#include <date/date.h>
#include <date/tz.h>

#include <set>
#include <utility>

namespace shedlock::detail {

bool is_template(const std::string& name_template) { return name_template.find('{') != std::string::npos; }

bool renders_by_time(const std::string& name_template) {
    return name_template.find("{date}") != std::string::npos || name_template.find("{datetime}") != std::string::npos;
}

namespace {

bool all_digits(std::string_view text) {
    for (const char c : text)
        if (c < '0' || c > '9') return false;
    return !text.empty();
}

/// Whether `text` is a year as date::format's %Y writes it: 4 digits or more (year 10000 has
/// five), a '-' before years below 0.
bool is_year(std::string_view text) {
    if (!text.empty() && text.front() == '-') text.remove_prefix(1);
    return text.size() >= 4 && all_digits(text);
}

/// Whether `text` is what {date} (`%Y%m%d`) or {datetime} (`%Y%m%dT%H%M%S`) renders.
bool is_rendered_time(std::string_view placeholder, std::string_view text) {
    if (placeholder == "datetime") {
        if (text.size() < 7 || text[text.size() - 7] != 'T' || !all_digits(text.substr(text.size() - 6))) return false;
        text.remove_suffix(7);
    }
    return text.size() >= 8 && is_year(text.substr(0, text.size() - 4)) && all_digits(text.substr(text.size() - 4));
}

/// Matches a template against a name. A time placeholder's year has no fixed length (year 10000
/// has five digits), so lengths are tried; the pairs of positions already known not to match are
/// remembered, which keeps a hostile template with many placeholders polynomial.
class template_matcher {
public:
    template_matcher(std::string_view name_template, std::string_view name, std::string_view env)
        : template_(name_template), name_(name), env_(env) {}

    bool matches(std::size_t t, std::size_t n) {
        if (failed_.count({t, n})) return false;
        const bool ok = try_match(t, n);
        if (!ok) failed_.insert({t, n});
        return ok;
    }

private:
    bool try_match(std::size_t t, std::size_t n) {
        const auto open = template_.find('{', t);
        const auto literal = template_.substr(t, open == std::string_view::npos ? std::string_view::npos : open - t);
        if (name_.substr(n, literal.size()) != literal) return false;
        n += literal.size();
        if (open == std::string_view::npos) return n == name_.size();
        const auto close = template_.find('}', open);
        if (close == std::string_view::npos) return false;
        const auto placeholder = template_.substr(open + 1, close - open - 1);
        if (placeholder == "env")
            return !env_.empty() && name_.substr(n, env_.size()) == env_ && matches(close + 1, n + env_.size());
        if (placeholder != "date" && placeholder != "datetime") return false;
        for (std::size_t length = 8; n + length <= name_.size(); ++length)
            if (is_rendered_time(placeholder, name_.substr(n, length)) && matches(close + 1, n + length)) return true;
        return false;
    }

    std::string_view template_, name_, env_;
    std::set<std::pair<std::size_t, std::size_t>> failed_;
};

}  // namespace

bool is_rendered_from(std::string_view name_template, std::string_view name, std::string_view env) {
    return template_matcher(name_template, name, env).matches(0, 0);
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
