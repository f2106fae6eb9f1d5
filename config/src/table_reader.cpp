#include "table_reader.hpp"

#include <shedlock/config.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <sstream>

namespace shedlock::detail {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string shown(const toml::node& node) {
    std::ostringstream out;
    node.visit([&out](const auto& value) { out << value; });
    return out.str();
}

}  // namespace

std::string table_reader::where(const toml::node& node) const {
    return file_ + ":" + std::to_string(node.source().begin.line);
}

std::string table_reader::about(const std::string& key) const {
    const toml::node* node = table_.get(key);
    std::string text = where(node ? *node : table_) + ": [" + section_ + "] " + key;
    if (node && node->is_string() && !secret_.count(key))
        text += " = \"" + printable_text(node->as_string()->get(), 200) + "\"";
    return text;
}

const toml::node* table_reader::find(const std::string& key) {
    known_.insert(key);
    return table_.get(key);
}

void table_reader::wrong_type(const std::string& key, const toml::node& node, const char* expected) const {
    const std::string value = secret_.count(key) ? "(value not shown: it may hold a password)" : shown(node);
    throw configuration_error(where(node) + ": [" + section_ + "] " + key + " = " + value + " must be " + expected);
}

std::optional<std::string> table_reader::text(const std::string& key) {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto* value = node->as_string();
    if (!value) wrong_type(key, *node, "a string");
    return expand_placeholders(value->get(), where(*node) + ": [" + section_ + "] " + key, !secret_.count(key));
}

std::optional<std::chrono::milliseconds> table_reader::duration(const std::string& key) {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    if (!node->as_string()) wrong_type(key, *node, "a duration string such as \"PT30S\" or \"30s\"");
    const std::string value = *text(key);
    try {
        const auto d = parse_duration(value, key);
        if (d.count() < 0) throw configuration_error(key + " \"" + value + "\" is negative");
        return d;
    } catch (const configuration_error& e) {
        throw configuration_error(where(*node) + ": [" + section_ + "] " + e.what());
    }
}

std::optional<bool> table_reader::boolean(const std::string& key) {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto* value = node->as_boolean();
    if (!value) wrong_type(key, *node, "true or false");
    return value->get();
}

std::optional<std::int64_t> table_reader::integer(const std::string& key, std::int64_t min, std::int64_t max) {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto* value = node->as_integer();
    if (!value || value->get() < min || value->get() > max) {
        const std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
        wrong_type(key, *node, range.c_str());
    }
    return value->get();
}

std::vector<std::string> table_reader::text_array(const std::string& key) {
    const toml::node* node = find(key);
    if (!node) return {};
    const auto* array = node->as_array();
    if (!array) wrong_type(key, *node, "an array of strings such as [\"/usr/bin/report\", \"--day\", \"{date}\"]");
    std::vector<std::string> out;
    for (const auto& element : *array) {
        const auto* s = element.as_string();
        if (!s) wrong_type(key, *node, "an array of strings");
        out.push_back(expand_placeholders(s->get(), where(element) + ": [" + section_ + "] " + key));
    }
    return out;
}

std::map<std::string, std::string> table_reader::text_table(const std::string& key) {
    const toml::node* node = find(key);
    if (!node) return {};
    const auto* table = node->as_table();
    if (!table) wrong_type(key, *node, "a table of strings such as { NAME = \"value\" }");
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : *table) {
        const auto* s = v.as_string();
        if (!s) wrong_type(key, *node, "a table of strings");
        out[std::string(k.str())] =
            expand_placeholders(s->get(), where(v) + ": [" + section_ + "] " + key + "." + std::string(k.str()), !secret_.count(key));
    }
    return out;
}

void table_reader::finish() const {
    for (const auto& [key, node] : table_) {
        const std::string name(key.str());
        if (known_.count(name)) continue;
        std::string nearest;
        std::size_t best = 3;
        for (const auto& k : known_)
            if (auto d = edit_distance(name, k); d < best) best = d, nearest = k;
        std::string accepted;
        for (const auto& k : known_) accepted += (accepted.empty() ? "" : ", ") + k;
        throw configuration_error(where(node) + ": unknown key \"" + name + "\" in [" + section_ + "]" +
                                  (nearest.empty() ? "" : "; did you mean \"" + nearest + "\"?") + " (accepted: " + accepted + ")");
    }
}

}  // namespace shedlock::detail
