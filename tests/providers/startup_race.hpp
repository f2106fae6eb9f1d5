#pragma once
// Instances of a service usually start together (a rolling deploy, a cluster restart). Each
// finds the table missing and creates it; the checks here make them do so at the same moment.

#include <functional>

namespace shedlock::test {

/// Runs `start` on `instances` threads released together (each builds its own provider or run
/// store); fails the test with the first error message when any of them threw.
void check_simultaneous_start(int instances, const std::function<void()>& start);

}  // namespace shedlock::test
