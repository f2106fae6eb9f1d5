#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>

namespace shedlock {
namespace {

std::string printable(std::string_view name) {
    std::string out;
    for (unsigned char c : name) {
        if (c < 0x20 || c == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xf];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

void validate_durations(const std::string& name, std::chrono::milliseconds at_most, std::chrono::milliseconds at_least) {
    const std::string where = "lock \"" + name + "\": ";
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

}  // namespace

void validate_lock_name(std::string_view name) {
    if (name.empty()) throw configuration_error("lock name is empty; give a name such as \"billing:reconcile\"");
    if (name.size() > max_lock_name_length)
        throw configuration_error("lock name \"" + printable(name) + "\" has " + std::to_string(name.size()) +
                                  " characters; at most " + std::to_string(max_lock_name_length) +
                                  " fit the name column, shorten it");
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f)
            throw configuration_error("lock name \"" + printable(name) +
                                      "\" contains a control character; use printable characters only");
}

lock_configuration::lock_configuration(std::string name, std::chrono::milliseconds lock_at_most_for,
                                       std::chrono::milliseconds lock_at_least_for)
    : name_(std::move(name)), at_most_(lock_at_most_for), at_least_(lock_at_least_for) {
    validate_lock_name(name_);
    validate_durations(name_, at_most_, at_least_);
}

lock_configuration::lock_configuration(std::string name, std::string_view lock_at_most_for,
                                       std::string_view lock_at_least_for)
    : lock_configuration(std::move(name), parse_duration(lock_at_most_for, "lock_at_most_for"),
                         parse_duration(lock_at_least_for, "lock_at_least_for")) {}

lock_configuration lock_configuration::with_name(std::string name) const {
    return lock_configuration(std::move(name), at_most_, at_least_);
}

}  // namespace shedlock
