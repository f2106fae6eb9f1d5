#pragma once
// A lock time as the model knows it: somewhere in [lo, hi]. Against the injected clock every span
// is a single instant; against a server clock "now" is only known to lie between the client
// clock read before and after the call, so every time derived from it is a span too.

#include <shedlock/time.hpp>

#include <algorithm>
#include <chrono>

namespace shedlock::model {

struct time_span {
    timestamp lo{};
    timestamp hi{};

    static time_span at(timestamp t) { return {t, t}; }
    bool contains(timestamp t) const { return lo <= t && t <= hi; }
    std::chrono::milliseconds width() const { return hi - lo; }
};

inline time_span operator+(time_span s, std::chrono::milliseconds d) { return {s.lo + d, s.hi + d}; }

inline time_span later_of(time_span a, time_span b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }

/// A comparison the model may not be able to decide when two spans overlap.
enum class truth { no, yes, unknown };

/// Whether `a <= b` for every / no / some choice of the true instants.
inline truth at_or_before(time_span a, time_span b) {
    if (a.hi <= b.lo) return truth::yes;
    if (a.lo > b.hi) return truth::no;
    return truth::unknown;
}

inline truth negate(truth t) {
    return t == truth::unknown ? truth::unknown : (t == truth::yes ? truth::no : truth::yes);
}

inline const char* to_string(truth t) { return t == truth::yes ? "yes" : (t == truth::no ? "no" : "either"); }

}  // namespace shedlock::model
