#pragma once
// A steady timer that ticks at a fixed rate on an io_context and records how late each tick ran:
// if anything blocked the io_context's thread, the next tick is late by as long as it blocked.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <vector>

namespace shedlock::test {

class tick_probe {
public:
    tick_probe(boost::asio::io_context& io, std::chrono::milliseconds period) : timer_(io), period_(period) {}

    /// Starts ticking; lateness is recorded from the first tick on.
    void start();
    /// Stops ticking; a tick that was due but has not run counts with its lateness so far. (The
    /// io_context must run once more for the cancel.)
    void stop();

    /// How late each tick ran after its due time (due times are start + k * period).
    const std::vector<std::chrono::microseconds>& lateness() const noexcept { return lateness_; }
    std::chrono::microseconds max_lateness() const;
    std::chrono::microseconds median_lateness() const;

private:
    void arm();

    boost::asio::steady_timer timer_;
    std::chrono::milliseconds period_;
    std::chrono::steady_clock::time_point due_;
    std::vector<std::chrono::microseconds> lateness_;
    bool stopped_ = false;
};

}  // namespace shedlock::test
