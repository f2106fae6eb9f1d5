#pragma once
// Lock names rendered per firing: "settle:{date}" -> "settle:20240601".

#include <shedlock/time.hpp>

#include <string>
#include <string_view>

namespace date {
class time_zone;
}

namespace shedlock::detail {

/// Replaces {date} (YYYYMMDD) and {datetime} (YYYYMMDDTHHMMSS) with `at` in `zone`, and {env}
/// with `env`. Throws configuration_error on an unknown or unclosed placeholder, or {env} with an
/// empty env. The result is not length-checked here (validate_lock_name does that).
std::string render_lock_name(const std::string& name_template, timestamp at, const date::time_zone& zone,
                             const std::string& env);

/// True when the template contains a placeholder.
bool is_template(const std::string& name_template);

/// True when the template contains {date} or {datetime}: its names change with time, and a name
/// whose time has passed is never rendered again (so its expired record may be deleted).
bool renders_by_time(const std::string& name_template);

/// True when `name` is what render_lock_name(name_template, some time, some zone, env) can give:
/// the literal parts equal, {date} 8 digits, {datetime} 8 digits, 'T' and 6 digits, {env} equal
/// to `env`. False for a malformed template.
bool is_rendered_from(std::string_view name_template, std::string_view name, std::string_view env);

}  // namespace shedlock::detail
