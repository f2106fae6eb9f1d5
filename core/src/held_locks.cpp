#include "held_locks.hpp"

#include <algorithm>
#include <vector>

namespace shedlock::detail {
namespace {

std::vector<std::string>& held() {
    thread_local std::vector<std::string> names;
    return names;
}

}  // namespace

int& thread_assume_all_held() noexcept {
    thread_local int depth = 0;
    return depth;
}

bool executor_holds_on_this_thread(std::string_view name) noexcept {
    const auto& names = held();
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool thread_holds_or_assumes(std::string_view name) noexcept {
    return thread_assume_all_held() > 0 || executor_holds_on_this_thread(name);
}

bool thread_holds_or_assumes_any() noexcept { return thread_assume_all_held() > 0 || !held().empty(); }

held_lock_scope::held_lock_scope(std::string name) : name_(std::move(name)) { held().push_back(name_); }

held_lock_scope::~held_lock_scope() {
    auto& names = held();
    auto it = std::find(names.rbegin(), names.rend(), name_);
    if (it != names.rend()) names.erase(std::next(it).base());
}

}  // namespace shedlock::detail
