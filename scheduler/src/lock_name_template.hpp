#pragma once
// Lock names rendered per firing: "settle:{date}" -> "settle:20240601".

#include <shedlock/time.hpp>

#include <string>

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

}  // namespace shedlock::detail
