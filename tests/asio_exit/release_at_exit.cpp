// A release still running on the pool while the process exits (issue 23, found by UBSan in the
// local CI run: "member call on address ... which does not point to an object of type 'clock'").
// A lock_handle destroyed just before main returns starts its release on the pool and returns
// (it never blocks); the pool's thread may then outlive main and run during static destruction.
// Whatever it touches there must still be alive: here the clock every provider defaults to,
// system_clock::instance(). The program makes the window certain: an atexit handler registered
// before that clock existed runs after the clock's destructor would have, and waits there until
// the release has read the clock. A destroyed clock aborts the program (a pure virtual call:
// exit status 134), or UBSan reports it ("runtime error", which fails the test too).
// Not Catch2: its main would return first and decide nothing.
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/time.hpp>

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

std::atomic<bool> release_started{false};
std::atomic<bool> release_done{false};
std::atomic<bool> clock_read{false};

/// Hands out every lock; its release waits until the process is exiting, then reads its clock.
class exit_release_provider final : public shedlock::lock_provider {
public:
    bool supports_fencing() const override { return false; }

private:
    std::optional<shedlock::lease> do_try_lock(const shedlock::lock_configuration& config,
                                               const std::string& owner) override {
        const auto now = clock().now();
        return shedlock::lease{config.name(), owner, now, now + config.lock_at_most_for(), now, std::nullopt, {}};
    }
    void do_unlock(const shedlock::lease&) override {
        release_started = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // main has returned by now
        const shedlock::clock& c = clock();                            // system_clock::instance()
        clock_read = c.now().time_since_epoch().count() > 0;
        release_done = true;
    }
    std::optional<shedlock::lease> do_extend(const shedlock::lease&, std::chrono::milliseconds,
                                             std::chrono::milliseconds) override {
        return std::nullopt;
    }
};

void wait_for_release() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!release_done && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!release_done) {
        std::fprintf(stderr, "release_at_exit: the release did not finish within 10 s\n");
        std::_Exit(3);
    }
    if (!clock_read) {
        std::fprintf(stderr, "release_at_exit: the release read no time from its clock\n");
        std::_Exit(4);
    }
    std::printf("release_at_exit: the release finished during exit and read its clock\n");
}

}  // namespace

int main() {
    std::atexit(wait_for_release);  // before system_clock::instance() exists: runs after its destructor
    boost::asio::io_context io;
    auto service = std::make_shared<shedlock::asio::pooled_lock_service>(
        std::make_shared<exit_release_provider>(), io.get_executor(), std::make_shared<shedlock::asio::blocking_pool>(1));
    bool locked = false;
    shedlock::asio::async_try_lock(*service, shedlock::lock_configuration("exit", std::chrono::seconds(30)),
                                   [&](shedlock::asio::error_code ec, std::optional<shedlock::asio::lock_handle> h) {
                                       locked = !ec && h.has_value();
                                   });  // the handle is destroyed here: its release starts on the pool
    io.run();
    service.reset();  // the release job keeps the service (and its pool) alive
    while (!release_started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!locked) {
        std::fprintf(stderr, "release_at_exit: the lock was not acquired\n");
        return 2;
    }
    return 0;
}
