#include <shedlock/owner_token.hpp>

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <random>

namespace shedlock {
namespace {

std::string host_name() {
    std::array<char, 256> buf{};
    if (::gethostname(buf.data(), buf.size() - 1) != 0 || buf[0] == '\0') return "unknown-host";
    std::string host(buf.data());
    return host.substr(0, 180);  // owner token must fit VARCHAR(255)
}

std::string random_suffix() {
    // Seeded per thread from the OS; a counter keeps tokens unique even if two seeds collide.
    thread_local std::mt19937_64 engine{std::random_device{}()};
    static std::atomic<std::uint64_t> counter{0};
    const std::uint64_t value = engine() ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL);
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string out;
    for (std::uint64_t v = value; out.size() < 12; v /= 36) out += digits[v % 36];
    return out;
}

/// getpid() is a system call (about 1 us on a paravirtualised VM) and every acquisition needs it,
/// so it is read once per process: a fork() child forgets the parent's value (pthread_atfork).
/// A child made with a raw clone() that runs no fork handlers would keep it; it has to exec.
std::atomic<pid_t> cached_pid{0};

pid_t current_pid() {
    static const bool forget_in_child =
        ::pthread_atfork(nullptr, nullptr, [] { cached_pid.store(0, std::memory_order_relaxed); }) == 0;
    if (!forget_in_child) return ::getpid();
    pid_t pid = cached_pid.load(std::memory_order_relaxed);
    if (pid == 0) cached_pid.store(pid = ::getpid(), std::memory_order_relaxed);
    return pid;
}

}  // namespace

std::string instance_id() {
    static const std::string host = host_name();
    return host + ":" + std::to_string(current_pid());  // per process: forked children differ
}

std::string make_owner_token() { return instance_id() + ":" + random_suffix(); }

}  // namespace shedlock
