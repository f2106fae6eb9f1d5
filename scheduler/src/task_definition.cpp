#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/task_definition.hpp>

namespace shedlock {

namespace {

/// Parses `text` into `field` at once; a bad text becomes an error start() reports.
task_option parsed(std::string_view text, const char* field_name,
                   std::optional<std::chrono::milliseconds> task_definition::*field) {
    std::optional<std::chrono::milliseconds> value;
    std::string error;
    try {
        value = parse_duration(text, field_name);
    } catch (const configuration_error& e) {
        error = e.what();
    }
    return {[value, error, field](task_definition& t) {
        if (!error.empty()) t.errors.push_back(error);
        else t.*field = value;
    }};
}

}  // namespace

task_option lock_at_most_for(std::string_view duration) {
    return parsed(duration, "lock_at_most_for", &task_definition::lock_at_most_for);
}

task_option lock_at_most_for(std::chrono::milliseconds duration) {
    return {[duration](task_definition& t) { t.lock_at_most_for = duration; }};
}

task_option lock_at_least_for(std::string_view duration) {
    return parsed(duration, "lock_at_least_for", &task_definition::lock_at_least_for);
}

task_option lock_at_least_for(std::chrono::milliseconds duration) {
    return {[duration](task_definition& t) { t.lock_at_least_for = duration; }};
}

task_option lock_name(std::string name_template) {
    return {[text = std::move(name_template)](task_definition& t) { t.lock_name = text; }};
}

task_option enabled(bool on) {
    return {[on](task_definition& t) { t.enabled = on; }};
}

task_option wait_for_lock(std::chrono::milliseconds wait) {
    return {[wait](task_definition& t) { t.wait_for_lock = wait; }};
}

task_option keep_alive(bool on) {
    return {[on](task_definition& t) { t.keep_alive = on; }};
}

task_option misfire_grace(std::chrono::milliseconds grace) {
    return {[grace](task_definition& t) { t.misfire_grace = grace; }};
}

task_option idempotency_key(std::string key_template) {
    return {[text = std::move(key_template)](task_definition& t) { t.idempotency_key = text; }};
}

task_option claim_for(std::chrono::milliseconds duration) {
    return {[duration](task_definition& t) { t.claim_for = duration; }};
}

}  // namespace shedlock
