#pragma once
// Typed, checked reads from one TOML table; every error names file, line, key and value.

#include <toml++/toml.h>

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shedlock::detail {

class table_reader {
public:
    table_reader(const toml::table& table, std::string file, std::string section)
        : table_(table), file_(std::move(file)), section_(std::move(section)) {}

    std::optional<std::string> text(const std::string& key);
    std::optional<std::chrono::milliseconds> duration(const std::string& key);
    std::optional<bool> boolean(const std::string& key);
    std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max);
    std::vector<std::string> text_array(const std::string& key);
    std::map<std::string, std::string> text_table(const std::string& key);
    /// Marks `key` as one whose value may hold a password (a provider URI, environment values):
    /// no error message shows its value, in whole or in part.
    void secret(const std::string& key) { secret_.insert(key); }
    /// Marks `key` as accepted without reading it (a sub-table read elsewhere).
    void allow(const std::string& key) { known_.insert(key); }
    /// Throws for the first key nobody read (a misspelling), suggesting the nearest known key.
    void finish() const;

    /// "file:line" of a node (or of the table).
    std::string where(const toml::node& node) const;
    std::string where() const { return where(table_); }
    /// "file:line: [section] key = \"value\"", the line of `key` itself (of the table when it is
    /// absent), the value as written (not for a secret key): for checks made after reading, so
    /// they point where the reads' own errors point.
    std::string about(const std::string& key) const;

private:
    const toml::node* find(const std::string& key);
    [[noreturn]] void wrong_type(const std::string& key, const toml::node& node, const char* expected) const;

    const toml::table& table_;
    std::string file_;
    std::string section_;
    std::set<std::string> known_;
    std::set<std::string> secret_;
};

}  // namespace shedlock::detail
