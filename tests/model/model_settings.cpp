#include "model_settings.hpp"

#include <chrono>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

namespace shedlock::model {
namespace {

const char* env(const char* name) {
    const char* value = std::getenv(name);
    return value && *value ? value : nullptr;
}

std::uint64_t parse_number(const char* name, const char* text) {
    std::size_t used = 0;
    std::uint64_t value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || text[used] != '\0')
        throw std::invalid_argument(std::string(name) + " must be a decimal number, not \"" + text + "\"");
    return value;
}

// random_device alone may be deterministic on some platforms; the time makes runs differ anyway.
std::uint64_t fresh_seed() {
    std::random_device device;
    const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return ((std::uint64_t{device()} << 32) ^ device() ^ now) % 1'000'000'000'000ULL;  // short enough to copy
}

}  // namespace

model_settings settings_from_env() {
    model_settings s;
    if (const char* seed = env("SHEDLOCK_MODEL_SEED")) {
        s.seed = parse_number("SHEDLOCK_MODEL_SEED", seed);
        s.seed_from_env = true;
    } else {
        s.seed = fresh_seed();
    }
    if (const char* steps = env("SHEDLOCK_MODEL_STEPS"))
        s.steps = static_cast<long>(parse_number("SHEDLOCK_MODEL_STEPS", steps));
    if (const char* lines = env("SHEDLOCK_MODEL_LOG"))
        s.log_lines = static_cast<long>(parse_number("SHEDLOCK_MODEL_LOG", lines));
    return s;
}

}  // namespace shedlock::model
