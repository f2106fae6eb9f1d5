#include "fuzz_check.hpp"

namespace shedlock::fuzz {
namespace {

// A function-local static: registrations run during static initialization of other files.
std::map<std::string, registered_check>& registry() {
    static std::map<std::string, registered_check> checks;
    return checks;
}

}  // namespace

std::string shown(std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : text) {
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xf];
        }
    }
    return out;
}

bool register_check(const std::string& target, check_function check, setup_function setup) {
    registry()[target] = registered_check{check, setup};
    return true;
}

const std::map<std::string, registered_check>& registered_checks() { return registry(); }

}  // namespace shedlock::fuzz
