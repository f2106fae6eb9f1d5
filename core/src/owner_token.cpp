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

constexpr std::size_t nonce_length = 6;
constexpr std::size_t random_length = 12;

/// `length` base-36 digits of `value`, appended to `out`.
void append_base36(std::string& out, std::uint64_t value, std::size_t length) {
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (std::size_t i = 0; i < length; ++i, value /= 36) out += digits[value % 36];
}

/// Drawn once per process: a process restarted with the same host name and pid (a container's
/// pid 1) gets another one. A fork() child has another pid, so it may keep its parent's.
const std::string& process_nonce() {
    static const std::string nonce = [] {
        std::random_device os;
        std::string out;
        append_base36(out, (std::uint64_t{os()} << 32) ^ os(), nonce_length);
        return out;
    }();
    return nonce;
}

std::uint64_t random_value() {
    // Seeded per thread from the OS; a counter keeps tokens unique even if two seeds collide.
    thread_local std::mt19937_64 engine{std::random_device{}()};
    static std::atomic<std::uint64_t> counter{0};
    return engine() ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL);
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

std::string make_owner_token() {
    std::string out = instance_id();
    out.reserve(out.size() + 1 + nonce_length + random_length);
    out += ':';
    out += process_nonce();
    append_base36(out, random_value(), random_length);
    return out;
}

std::string process_of_owner(std::string_view token) {
    const auto last = token.rfind(':');
    if (last == std::string_view::npos || last == 0 || token.size() - last - 1 != nonce_length + random_length) return {};
    return std::string(token.substr(0, last + 1 + nonce_length));
}

std::string this_process() { return instance_id() + ":" + process_nonce(); }

}  // namespace shedlock
