// The lock table's column mapping (`columns=`) and upper-case option (`upper_case=`).
#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace shedlock::providers::sql {
namespace {

constexpr const char* column_mapping_example = "e.g. columns=name:job,lock_until:until_ts";

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

/// The member a mapping key names, or nullptr for an unknown key.
std::string* column_for_key(lock_columns& columns, const std::string& key) {
    if (key == "name") return &columns.name;
    if (key == "lock_until") return &columns.lock_until;
    if (key == "locked_at") return &columns.locked_at;
    if (key == "locked_by") return &columns.locked_by;
    if (key == "fencing_token") return &columns.fencing_token;
    return nullptr;
}

[[noreturn]] void bad_mapping(const std::string& mapping, const std::string& problem, const std::string& fix) {
    throw configuration_error("columns \"" + printable_text(mapping) + "\": " + problem + "; " + fix);
}

/// Applies one `key:column` entry of `mapping` to `out`, recording the key in `seen`.
void map_column(const std::string& mapping, const std::string& entry, lock_columns& out, std::set<std::string>& seen) {
    const auto colon = entry.find(':');
    if (colon == std::string::npos)
        bad_mapping(mapping, "entry \"" + printable_text(entry) + "\" has no ':'", std::string("write key:column, ") + column_mapping_example);
    const std::string key = entry.substr(0, colon);
    const std::string column = entry.substr(colon + 1);
    std::string* target = column_for_key(out, key);
    if (target == nullptr)
        bad_mapping(mapping, "unknown column key \"" + printable_text(key) + "\"",
                    "the keys are name, lock_until, locked_at, locked_by and fencing_token");
    if (!seen.insert(key).second) bad_mapping(mapping, "key \"" + key + "\" is given twice", "map each key once");
    if (!is_plain_identifier(column))
        bad_mapping(mapping, "column \"" + printable_text(column) + "\" for " + key + " is not a plain identifier",
                    "use letters, digits and '_' (at most 63, not starting with a digit)");
    *target = column;
}

/// Throws unless the five columns are five different names (compared as the database would:
/// without regard to case, since an unquoted name may be folded).
void require_distinct(const std::string& mapping, const lock_columns& c) {
    const std::string all[] = {c.name, c.lock_until, c.locked_at, c.locked_by, c.fencing_token};
    std::set<std::string> names;
    for (const auto& column : all)
        if (!names.insert(upper(column)).second)
            bad_mapping(mapping, "column \"" + printable_text(column) + "\" is used for two keys",
                        "give each of name, lock_until, locked_at, locked_by and fencing_token its own column");
}

}  // namespace

lock_columns lock_columns::parse(const std::string& mapping) {
    lock_columns out;
    std::set<std::string> seen;
    std::size_t start = 0;
    while (start <= mapping.size()) {
        const auto comma = std::min(mapping.find(',', start), mapping.size());
        map_column(mapping, mapping.substr(start, comma - start), out, seen);
        start = comma + 1;
    }
    require_distinct(mapping, out);
    return out;
}

lock_columns lock_columns::upper_case() const {
    return {upper(name), upper(lock_until), upper(locked_at), upper(locked_by), upper(fencing_token)};
}

lock_table lock_table::with_case(const table_name& table, const lock_columns& columns, bool upper_case) {
    if (!upper_case) return {table, columns, false};
    return {table_name(upper(table.qualified())), columns.upper_case(), true};
}

quoted_lock_table sql_dialect::quoted(const lock_table& t) const {
    const auto q = [&](const std::string& id) { return t.exact_case() ? quote_exact(id) : quote(id); };
    const auto& s = t.table().schema();
    const lock_columns& c = t.columns();
    return {(s ? q(*s) + "." : std::string()) + q(t.table().table()),
            q(t.table().table()),
            q(c.name),
            q(c.lock_until),
            q(c.locked_at),
            q(c.locked_by),
            q(c.fencing_token)};
}

}  // namespace shedlock::providers::sql
