#pragma once
// Parser of the six cron fields (private to the scheduler).

#include <shedlock/cron_expression.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace shedlock::detail {

/// Whitespace-separated fields of a cron expression.
std::vector<std::string> split_cron_fields(std::string_view text);

/// Parses six fields (or a macro); throws configuration_error `"<expr>": <field> <reason>`.
cron_expression::fields parse_cron_fields(const std::string& expression);

}  // namespace shedlock::detail
