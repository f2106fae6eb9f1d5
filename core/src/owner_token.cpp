#include <shedlock/owner_token.hpp>

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

}  // namespace

std::string instance_id() {
    static const std::string host = host_name();
    return host + ":" + std::to_string(::getpid());  // getpid each time: forked children differ
}

std::string make_owner_token() { return instance_id() + ":" + random_suffix(); }

}  // namespace shedlock
