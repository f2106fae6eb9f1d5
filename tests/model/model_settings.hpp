#pragma once
// The seed and length of a model run: random by default (printed, so any run can be replayed),
// fixed by SHEDLOCK_MODEL_SEED / SHEDLOCK_MODEL_STEPS; SHEDLOCK_MODEL_LOG shows more history.

#include <cstdint>

namespace shedlock::model {

struct model_settings {
    std::uint64_t seed = 0;
    long steps = 10'000;
    long log_lines = 20;  ///< operations shown on a mismatch (SHEDLOCK_MODEL_LOG)
    bool seed_from_env = false;
};

/// Throws std::invalid_argument for a variable that is set but not a number.
model_settings settings_from_env();

}  // namespace shedlock::model
