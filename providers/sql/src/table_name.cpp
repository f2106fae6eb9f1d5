#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>

#include <cctype>

namespace shedlock::providers::sql {
namespace {

constexpr std::size_t max_identifier = 63;  // PostgreSQL's limit, the tightest of the three

}  // namespace

bool is_plain_identifier(const std::string& s) {
    if (s.empty() || s.size() > max_identifier) return false;
    if (!std::isalpha(static_cast<unsigned char>(s[0])) && s[0] != '_') return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) && c != '_') return false;
    return true;
}

table_name::table_name(const std::string& qualified) {
    const auto dot = qualified.find('.');
    std::string schema = dot == std::string::npos ? "" : qualified.substr(0, dot);
    std::string table = dot == std::string::npos ? qualified : qualified.substr(dot + 1);
    if ((dot != std::string::npos && !is_plain_identifier(schema)) || !is_plain_identifier(table))
        throw configuration_error("table name \"" + printable_text(qualified) +
                                  "\" is not a plain identifier; use letters, digits and '_' (at most 63 each), "
                                  "optionally schema-qualified, e.g. shedlock or ops.shedlock");
    if (dot != std::string::npos) schema_ = std::move(schema);
    table_ = std::move(table);
}

}  // namespace shedlock::providers::sql
