#include <shedlock/duration.hpp>
#include <shedlock/task_definition.hpp>

namespace shedlock {

task_option lock_at_most_for(std::string_view duration) {
    return {[text = std::string(duration)](task_definition& t) { t.lock_at_most_for = text; }};
}

task_option lock_at_most_for(std::chrono::milliseconds duration) {
    return lock_at_most_for(format_duration(duration));
}

task_option lock_at_least_for(std::string_view duration) {
    return {[text = std::string(duration)](task_definition& t) { t.lock_at_least_for = text; }};
}

task_option lock_at_least_for(std::chrono::milliseconds duration) {
    return lock_at_least_for(format_duration(duration));
}

task_option lock_name(std::string name_template) {
    return {[text = std::move(name_template)](task_definition& t) { t.lock_name = text; }};
}

task_option enabled(bool on) {
    return {[on](task_definition& t) { t.enabled = on; }};
}

task_option keep_alive(bool on) {
    return {[on](task_definition& t) { t.keep_alive = on; }};
}

task_option misfire_grace(std::chrono::milliseconds grace) {
    return {[grace](task_definition& t) { t.misfire_grace = grace; }};
}

}  // namespace shedlock
