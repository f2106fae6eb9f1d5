#include <shedlock/config.hpp>
#include <shedlock/error.hpp>

#include <cstdlib>

namespace shedlock {

std::string expand_placeholders(const std::string& text, const std::string& where, bool show_text) {
    const std::string in_text = show_text ? " in \"" + text + "\"" : " (value not shown: it may hold a password)";
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const auto open = text.find("${", pos);
        if (open == std::string::npos) break;
        const auto close = text.find('}', open);
        if (close == std::string::npos)
            throw configuration_error(where + ": \"${\" without a closing \"}\"" + in_text);
        out += text.substr(pos, open - pos);
        const std::string inside = text.substr(open + 2, close - open - 2);
        const auto colon = inside.find(':');
        const std::string var = inside.substr(0, colon);
        if (var.empty()) throw configuration_error(where + ": empty variable name" + in_text);
        if (const char* value = std::getenv(var.c_str())) out += value;
        else if (colon != std::string::npos) out += inside.substr(colon + 1);
        else
            throw configuration_error(where + ": environment variable " + var + " is not set and \"${" + var +
                                      "}\" has no default; set it or write ${" + var + ":default}");
        pos = close + 1;
    }
    return out + text.substr(pos);
}

}  // namespace shedlock
