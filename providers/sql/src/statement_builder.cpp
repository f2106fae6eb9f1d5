#include <shedlock/providers/sql/statement_builder.hpp>

#include <cctype>
#include <stdexcept>
#include <vector>

namespace shedlock::providers::sql {
namespace {

/// The index just past the quoted run that starts at `from` (a doubled quote stays inside).
std::size_t skip_quoted(const std::string& sql, std::size_t from) {
    const char quote = sql[from];
    std::size_t i = from + 1;
    while (i < sql.size()) {
        if (sql[i] != quote) {
            ++i;
            continue;
        }
        if (i + 1 < sql.size() && sql[i + 1] == quote) {
            i += 2;
            continue;
        }
        return i + 1;
    }
    return i;
}

/// The digits at `i` as a number (0 when there are none); `i` moves past them.
std::size_t read_number(const std::string& sql, std::size_t& i) {
    std::size_t n = 0;
    while (i < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i]))) n = n * 10 + static_cast<std::size_t>(sql[i++] - '0');
    return n;
}

/// Every placeholder number of `sql`, in order of appearance.
std::vector<std::size_t> placeholders(const std::string& sql, placeholder_style style) {
    const char mark = style == placeholder_style::dollar ? '$' : '?';
    std::vector<std::size_t> found;
    std::size_t highest = 0;
    for (std::size_t i = 0; i < sql.size();) {
        const char c = sql[i];
        if (c == '\'' || c == '"' || c == '`') {
            i = skip_quoted(sql, i);
            continue;
        }
        ++i;
        if (c != mark) continue;
        std::size_t n = read_number(sql, i);
        if (n == 0 && style == placeholder_style::question) n = highest + 1;  // a bare `?`
        if (n == 0) continue;                                                 // a `$` that is no placeholder
        found.push_back(n);
        if (n > highest) highest = n;
    }
    return found;
}

}  // namespace

void check_placeholders(const std::string& what, const std::string& sql, std::size_t bound, placeholder_style style) {
    const std::string mark = style == placeholder_style::dollar ? "$" : "?";
    std::vector<bool> used(bound + 1, false);
    for (const std::size_t n : placeholders(sql, style)) {
        if (n > bound)
            throw std::logic_error("SQL statement " + what + " uses placeholder " + mark + std::to_string(n) + " but binds " +
                                   std::to_string(bound) + " values: " + sql);
        used[n] = true;
    }
    for (std::size_t n = 1; n <= bound; ++n)
        if (!used[n])
            throw std::logic_error("SQL statement " + what + " binds " + std::to_string(bound) + " values but never uses " +
                                   mark + std::to_string(n) + ": " + sql);
}

}  // namespace shedlock::providers::sql
