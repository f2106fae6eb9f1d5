#include <shedlock/error.hpp>
#include <shedlock/run_store.hpp>

#include <cstdio>

namespace shedlock {
namespace {

std::string escape_key(const std::string& key) {
    std::string out;
    for (char c : key) {
        if (c == '%' || c == ';' || c == '=') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

std::string unescape_key(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size())
            throw storage_error(storage_category::invalid_data, "run record counter key \"" + text + "\" is malformed");
        out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
        i += 2;
    }
    return out;
}

}  // namespace

std::string encode_counters(const std::map<std::string, std::int64_t>& counters) {
    std::string out;
    for (const auto& [key, value] : counters) {
        if (!out.empty()) out += ';';
        out += escape_key(key) + '=' + std::to_string(value);
    }
    return out;
}

std::map<std::string, std::int64_t> decode_counters(const std::string& text) {
    std::map<std::string, std::int64_t> counters;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find(';', start), text.size());
        const auto pair = text.substr(start, end - start);
        const auto eq = pair.find('=');
        if (eq == std::string::npos)
            throw storage_error(storage_category::invalid_data, "run record counters \"" + text + "\" are malformed");
        try {
            counters[unescape_key(pair.substr(0, eq))] = std::stoll(pair.substr(eq + 1));
        } catch (const std::logic_error&) {
            throw storage_error(storage_category::invalid_data, "run record counters \"" + text + "\" are malformed");
        }
        start = end + 1;
    }
    return counters;
}

}  // namespace shedlock
