#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/utf8.hpp>


namespace shedlock {
namespace {

/// C0 controls, DEL and C1 controls (U+0080..U+009F; U+009B is an 8-bit CSI to a terminal).
bool is_control(char32_t cp) { return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f); }

/// The name for a message: well-formed printable characters as they are, every other byte
/// (controls, C1 controls, malformed UTF-8) as \xNN, so a message never carries terminal escapes
/// or broken text. Decoded here, not byte by byte: the control-character error is thrown before
/// the rest of the name was checked, and a C1 control is two bytes that are not controls alone.
std::string printable(std::string_view name) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t pos = 0; pos < name.size();) {
        const auto decoded = decode_utf8_at(name, pos);
        if (decoded && !is_control(decoded->code_point)) {
            out.append(name.substr(pos, decoded->length));
            pos += decoded->length;
            continue;
        }
        const auto c = static_cast<unsigned char>(name[pos++]);
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 0xf];
    }
    return out;
}

}  // namespace

void validate_lock_durations(const std::string& what, std::chrono::milliseconds at_most,
                             std::chrono::milliseconds at_least) {
    const std::string where = what + ": ";
    if (at_most > max_lock_at_most_for)
        throw configuration_error(where + "lock_at_most_for " + format_duration(at_most) + " is longer than the maximum " +
                                  format_duration(max_lock_at_most_for) +
                                  " (3650 days); a lease that long never ends in practice, give a shorter one "
                                  "(use keep-alive for long tasks)");
    if (at_most.count() <= 0)
        throw configuration_error(where + "lock_at_most_for " + format_duration(at_most) +
                                  " must be positive; give the longest the task may hold the lock, e.g. PT10M");
    if (at_least.count() < 0)
        throw configuration_error(where + "lock_at_least_for " + format_duration(at_least) +
                                  " must not be negative; use PT0S for no minimum hold");
    if (at_least > at_most)
        throw configuration_error(where + "lock_at_least_for " + format_duration(at_least) +
                                  " is longer than lock_at_most_for " + format_duration(at_most) +
                                  "; lower lock_at_least_for or raise lock_at_most_for");
}

void validate_lock_name(std::string_view name) {
    if (name.empty()) throw configuration_error("lock name is empty; give a name such as \"billing:reconcile\"");
    std::size_t characters = 0;
    for (std::size_t pos = 0; pos < name.size(); ++characters) {
        const auto decoded = decode_utf8_at(name, pos);
        if (!decoded)
            throw configuration_error("lock name \"" + printable(name) + "\" is not valid UTF-8 (byte " +
                                      std::to_string(pos) + "); write the name in UTF-8");
        pos += decoded->length;
        const char32_t cp = decoded->code_point;
        if (is_control(cp))
            throw configuration_error("lock name \"" + printable(name) +
                                      "\" contains a control character; use printable characters only");
    }
    if (characters > max_lock_name_length)
        throw configuration_error("lock name \"" + printable(name) + "\" has " + std::to_string(characters) +
                                  " characters; at most " + std::to_string(max_lock_name_length) +
                                  " fit the name column, shorten it");
}

lock_configuration::lock_configuration(std::string name, std::chrono::milliseconds lock_at_most_for,
                                       std::chrono::milliseconds lock_at_least_for)
    : name_(std::move(name)), at_most_(lock_at_most_for), at_least_(lock_at_least_for) {
    validate_lock_name(name_);
    validate_lock_durations("lock \"" + name_ + "\"", at_most_, at_least_);
}

lock_configuration::lock_configuration(std::string name, std::string_view lock_at_most_for,
                                       std::string_view lock_at_least_for)
    : lock_configuration(std::move(name), parse_duration(lock_at_most_for, "lock_at_most_for"),
                         parse_duration(lock_at_least_for, "lock_at_least_for")) {}

lock_configuration::lock_configuration(std::string name, std::string_view lock_at_most_for)
    : lock_configuration(std::move(name), parse_duration(lock_at_most_for, "lock_at_most_for")) {}

lock_configuration lock_configuration::with_name(std::string name) const {
    return lock_configuration(std::move(name), at_most_, at_least_);
}

}  // namespace shedlock
