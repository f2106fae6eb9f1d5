#pragma once
// The checks behind the fuzz targets, shared by the libFuzzer entry (fuzz_entry.cpp) and the
// regression program (fuzz_regressions_test.cpp), so a saved input replays exactly what failed.
//
// A check returns normally when the code under test behaved: it accepted the input and every
// invariant held, or it rejected the input with the exception its contract names. Anything else
// escapes: an unexpected exception type, or a `violation` thrown by the check itself.

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace shedlock::fuzz {

/// An invariant did not hold; the message says which and shows the values.
class violation : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// Throws violation(message()) unless `condition`. The message is a callable so that it is
/// built only on failure: checks run millions of times per minute.
template <typename Message>
void expect(bool condition, Message&& message) {
    if (!condition) throw violation(std::forward<Message>(message)());
}

/// The text with control and non-ASCII bytes as \xNN, for violation messages.
std::string shown(std::string_view text);

using check_function = void (*)(std::string_view input);
using setup_function = void (*)();

struct registered_check {
    check_function check = nullptr;
    setup_function setup = nullptr;  ///< run once before the first input (may be null)
};

/// Registers a check under its target name, which is also its folder under corpus/ and
/// regressions/. Called from a namespace-scope initializer in each *_check.cpp.
bool register_check(const std::string& target, check_function check, setup_function setup = nullptr);

/// Every check linked into this program, by target name.
const std::map<std::string, registered_check>& registered_checks();

}  // namespace shedlock::fuzz
