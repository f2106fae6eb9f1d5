#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/utf8.hpp>

namespace shedlock {
namespace {

/// Any ASCII case: in a MySQL/MariaDB table whose name column still folds case (Java ShedLock's,
/// an older shedlock-cpp's; docs/sql-providers.md), "SHEDLOCK-HEARTBEAT:..." is the heartbeat's row.
bool starts_with_heartbeat_prefix(std::string_view name) {
    if (name.size() < heartbeat_prefix.size()) return false;
    for (std::size_t i = 0; i < heartbeat_prefix.size(); ++i) {
        const char c = name[i] >= 'A' && name[i] <= 'Z' ? static_cast<char>(name[i] - 'A' + 'a') : name[i];
        if (c != heartbeat_prefix[i]) return false;
    }
    return true;
}

void validate_unreserved_lock_name(std::string_view name) {
    if (!starts_with_heartbeat_prefix(name)) return;
    const auto alternative = name.substr(heartbeat_prefix.size() - std::string_view("heartbeat:").size());
    throw configuration_error("lock name \"" + printable_text(name) + "\" starts with \"" + std::string(heartbeat_prefix) +
                              "\", which is reserved for the heartbeat records of status servers; rename the lock, "
                              "e.g. \"" + printable_text(alternative) + "\"");
}

}  // namespace

void validate_lock_durations(const std::string& what, std::chrono::milliseconds at_most,
                             std::chrono::milliseconds minimum_hold) {
    const std::string where = what + ": ";
    if (at_most > max_lock_at_most_for)
        throw configuration_error(where + "lock_at_most_for " + format_duration(at_most) + " is longer than the maximum " +
                                  format_duration(max_lock_at_most_for) +
                                  " (3650 days); a lease that long never ends in practice, give a shorter one "
                                  "(use keep-alive for long tasks)");
    if (at_most.count() <= 0)
        throw configuration_error(where + "lock_at_most_for " + format_duration(at_most) +
                                  " must be positive; give the longest the task may hold the lock, e.g. PT10M");
    if (minimum_hold.count() < 0)
        throw configuration_error(where + "lock_at_least_for " + format_duration(minimum_hold) +
                                  " must not be negative; use PT0S for no minimum hold");
    if (minimum_hold > at_most)
        throw configuration_error(where + "lock_at_least_for " + format_duration(minimum_hold) +
                                  " is longer than lock_at_most_for " + format_duration(at_most) +
                                  "; lower lock_at_least_for or raise lock_at_most_for");
}

void validate_lock_name(std::string_view name) {
    if (name.empty()) throw configuration_error("lock name is empty; give a name such as \"billing:reconcile\"");
    if (const auto problem = name_text_problem(name); !problem.empty())
        throw configuration_error("lock name \"" + printable_text(name) + "\" " + problem +
                                  "; write the name in UTF-8 with printable characters only");
    std::size_t characters = 0;
    for (std::size_t pos = 0; pos < name.size(); ++characters) pos += decode_utf8_at(name, pos)->length;
    if (characters > max_lock_name_length)
        throw configuration_error("lock name \"" + printable_text(name) + "\" has " + std::to_string(characters) +
                                  " characters; at most " + std::to_string(max_lock_name_length) +
                                  " fit the name column, shorten it");
}

lock_configuration::lock_configuration(std::string name, std::chrono::milliseconds lock_at_most_for,
                                       std::chrono::milliseconds lock_at_least_for)
    : name_(std::move(name)), at_most_(lock_at_most_for), at_least_(lock_at_least_for) {
    validate_lock_name(name_);
    validate_unreserved_lock_name(name_);
    validate_lock_durations("lock \"" + name_ + "\"", at_most_, at_least_);
}

lock_configuration::lock_configuration(reserved_name, std::string name, std::chrono::milliseconds lock_at_most_for)
    : name_(std::move(name)), at_most_(lock_at_most_for), at_least_(0) {
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
    lock_configuration copy(std::move(name), at_most_, at_least_);
    copy.template_ = template_;
    return copy;
}

lock_configuration lock_configuration::rendered_from(std::string name_template) const {
    lock_configuration copy = *this;
    copy.template_ = std::move(name_template);
    return copy;
}

}  // namespace shedlock
