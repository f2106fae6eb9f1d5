#include "lock_table_check.hpp"

#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <cctype>

namespace shedlock::providers::sql {
namespace {

enum class column_kind { text, time, integer };

/// One key of the mapping and what the statements need of its column.
struct column_role {
    const char* key;
    std::string column;  ///< as the statements name it (after any folding), unquoted
    column_kind kind;
    bool unique_alone;   ///< the upsert's conflict target
    bool optional;       ///< may be absent: ShedLock's default fencing column only
};

std::string ascii_upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

// Identifiers are plain (letters, digits, '_'), so a quoted one is its name between two quotes.
std::string unquoted(const std::string& quoted) { return quoted.substr(1, quoted.size() - 2); }

std::vector<column_role> roles_of(const sql_dialect& dialect, const lock_table& table) {
    const auto q = dialect.quoted(table);
    const bool default_fencing = ascii_upper(table.columns().fencing_token) == "FENCING_TOKEN";
    return {{"name", unquoted(q.name), column_kind::text, true, false},
            {"lock_until", unquoted(q.lock_until), column_kind::time, false, false},
            {"locked_at", unquoted(q.locked_at), column_kind::time, false, false},
            {"locked_by", unquoted(q.locked_by), column_kind::text, false, false},
            {"fencing_token", unquoted(q.fencing_token), column_kind::integer, false, default_fencing}};
}

const described_column* find_column(const std::vector<described_column>& columns, const std::string& name,
                                    bool ignore_case) {
    const auto same = [&](const described_column& c) {
        return ignore_case ? ascii_upper(c.name) == ascii_upper(name) : c.name == name;
    };
    const auto it = std::find_if(columns.begin(), columns.end(), same);
    return it == columns.end() ? nullptr : &*it;
}

bool fits(const column_kinds& kinds, column_kind kind) {
    switch (kind) {
        case column_kind::text: return kinds.text;
        case column_kind::time: return kinds.time;
        case column_kind::integer: return kinds.integer;
    }
    return false;
}

const char* kind_text(column_kind kind) {
    switch (kind) {
        case column_kind::text: return "a text column";
        case column_kind::time: return "a timestamp column";
        case column_kind::integer: return "an integer column";
    }
    return "";
}

constexpr const char* roles_fix =
    "name and locked_by are text columns, lock_until and locked_at timestamps, fencing_token an integer; "
    "check the columns= mapping (every client of this table must use the same one)";

[[noreturn]] void unfit(const sql_dialect& dialect, const lock_table& table, const column_role& role,
                        const std::string& problem, const std::string& fix) {
    throw storage_error(storage_category::missing_schema,
                        dialect.name() + " lock table \"" + printable_text(table.table().qualified()) +
                            "\" cannot hold locks as mapped: column \"" + printable_text(role.column) + "\" (" +
                            role.key + ") " + problem + ". " + fix);
}

void check_role(const sql_dialect& dialect, const lock_table& table, const column_role& role,
                const described_column& column) {
    if (!fits(dialect.kinds_of(column.type), role.kind))
        unfit(dialect, table, role,
              "is " + printable_text(column.type) + ", not " + kind_text(role.kind), std::string("Fix: ") + roles_fix);
    if (role.unique_alone && !column.unique_alone)
        unfit(dialect, table, role,
              "is neither the primary key on its own nor alone in a unique index, so two instances could each "
              "insert a row for one lock and both run",
              "Fix: map name to the table's primary-key column (columns=name:COLUMN), or make it the key: "
              "ALTER TABLE " + printable_text(table.table().qualified()) + " ADD PRIMARY KEY (" +
                  printable_text(role.column) + ")");
}

}  // namespace

std::vector<described_column> described_columns(const sql_result& result) {
    std::vector<described_column> columns;
    for (const auto& row : result.rows)
        if (row.size() >= 3 && row[0])
            columns.push_back({*row[0], row[1].value_or(""), row[2].value_or("0") == "1"});
    return columns;
}

lock_columns_verdict check_lock_columns(const sql_dialect& dialect, const lock_table& table,
                                        const std::vector<described_column>& columns) {
    lock_columns_verdict verdict;
    for (const auto& role : roles_of(dialect, table)) {
        const described_column* column = find_column(columns, role.column, dialect.column_names_ignore_case());
        if (column == nullptr) {
            if (role.optional) continue;  // a plain ShedLock table: locks work, tokens are unavailable
            unfit(dialect, table, role, "does not exist",
                  std::string("Name an existing column with columns=") + role.key +
                      ":COLUMN (upper_case=true for a table created with quoted upper-case names), or add the column");
        }
        check_role(dialect, table, role, *column);
        if (role.kind == column_kind::integer) {
            verdict.fencing = true;
            verdict.wide_fencing = dialect.kinds_of(column->type).integer_64;
        }
    }
    return verdict;
}

}  // namespace shedlock::providers::sql
