#include "op_clock.hpp"

#include <algorithm>
#include <thread>

namespace shedlock::model {

using std::chrono::milliseconds;

op_clock::op_clock(conformance::fixture& f, bool exact) : fixture_(f), exact_(exact) {
    if (!exact_) tolerance_ = measure_tolerance(f.provider());
    origin_ = read();
}

// On one machine the server reads the same clock as we do (offset 0); a server elsewhere may be
// off. The best of a few round trips bounds the offset.
milliseconds op_clock::measure_tolerance(lock_provider& provider) {
    milliseconds best = milliseconds::max();
    for (int i = 0; i < 5; ++i) {
        const timestamp before = system_clock::instance().now();
        const timestamp server = inspect(provider).lock_time_now();
        const timestamp after = system_clock::instance().now() + milliseconds{1};
        const milliseconds offset =
            server < before ? before - server : (server > after ? server - after : milliseconds{0});
        best = std::min(best, offset);
    }
    return best;
}

timestamp op_clock::read() const { return exact_ ? fixture_.clock().now() : system_clock::instance().now(); }

time_span op_clock::window(timestamp before, timestamp after) const {
    if (exact_) return time_span::at(before);
    // Our clock truncates to ms: the true "after" lies below after + 1 ms, and a server that
    // reads the same clock and rounds to ms shows at most that.
    return {before - tolerance_, after + milliseconds{1} + tolerance_};
}

milliseconds op_clock::conversion_slack(time_span window) const { return exact_ ? milliseconds{0} : window.width(); }

void op_clock::pass(milliseconds d) {
    if (exact_) fixture_.clock().advance(d);
    else std::this_thread::sleep_for(d);
}

std::string op_clock::show(timestamp t) const {
    if (t == timestamp::max()) return "max";
    return (t >= origin_ ? "+" : "-") + std::to_string(std::chrono::abs(t - origin_).count()) + "ms";
}

std::string op_clock::show(time_span s) const {
    return s.lo == s.hi ? show(s.lo) : "[" + show(s.lo) + ", " + show(s.hi) + "]";
}

}  // namespace shedlock::model
