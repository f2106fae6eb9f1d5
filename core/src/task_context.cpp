#include <shedlock/error.hpp>
#include <shedlock/task_context.hpp>

#include <utility>

namespace shedlock {

std::optional<std::int64_t> task_context::fencing_token() const {
    std::lock_guard lock(mutex_);
    return handle_ ? handle_->fencing_token() : fencing_token_;
}

bool task_context::extend(std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold) {
    std::lock_guard lock(mutex_);
    if (!handle_ || lock_lost_.load()) return false;
    try {
        auto extended = handle_->extend(at_most, minimum_hold);
        if (extended) {
            handle_ = std::move(extended);
            return true;
        }
        handle_.reset();  // the extend consumed it; nothing left to unlock
    } catch (const storage_error&) {
        // Backend unreachable: we can no longer prove ownership. Keep the handle so the final
        // unlock can still try, but treat the lock as lost.
    }
    mark_lock_lost();
    return false;
}

void task_context::count(const std::string& key, std::int64_t n) {
    std::lock_guard lock(mutex_);
    counters_[key] += n;
}

std::map<std::string, std::int64_t> task_context::counters() const {
    std::lock_guard lock(mutex_);
    return counters_;
}

void task_context::attach(lock_handle* handle) {
    std::lock_guard lock(mutex_);
    if (handle) handle_ = std::move(*handle);
}

std::optional<lock_handle> task_context::detach() {
    std::lock_guard lock(mutex_);
    return std::exchange(handle_, std::nullopt);
}

void task_context::set_fencing_token(std::optional<std::int64_t> token) {
    std::lock_guard lock(mutex_);
    fencing_token_ = token;
}

void task_context::mark_lock_lost() noexcept {
    lock_lost_.store(true);
    cancelled_.store(true);
}

void task_context::set_result(std::string text) {
    const std::lock_guard lock(mutex_);
    result_ = std::move(text);
}

std::string task_context::result() const {
    const std::lock_guard lock(mutex_);
    return result_;
}

}  // namespace shedlock
