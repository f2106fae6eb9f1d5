// A loopback TCP relay that delays every byte by a fixed time in each direction: a network's
// round trip for the benches, where netem (the kernel's delay qdisc) is not available. Each
// chunk read on one side is written to the other `delay` after it was read, in order, so a
// client sees a round trip of 2 x delay plus the server's time, and many requests in flight on
// one connection overlap their delays as they would on a real link. One thread, Asio.
//
//   delay_proxy <listen port> <upstream port> <one-way delay in microseconds>
//
// Prints "delay_proxy ready on 127.0.0.1:<port>" once it listens; stops on SIGINT/SIGTERM.
#include "delay_relay.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>

#include <charconv>
#include <cstdio>
#include <string_view>

namespace {

/// `text` as an integer in [min, max], or an error that names it.
long long parse_bound(std::string_view what, std::string_view text, long long min, long long max) {
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < min || value > max)
        throw std::invalid_argument(std::string(what) + " \"" + std::string(text) + "\" is not a whole number in [" +
                                    std::to_string(min) + ", " + std::to_string(max) + "]");
    return value;
}

void accept_next(boost::asio::ip::tcp::acceptor& acceptor, boost::asio::ip::tcp::endpoint upstream,
                 std::chrono::microseconds delay) {
    acceptor.async_accept([&acceptor, upstream, delay](boost::system::error_code ec, boost::asio::ip::tcp::socket client) {
        if (ec == boost::asio::error::operation_aborted) return;
        if (!ec) shedlock::bench::start_delay_relay(std::move(client), upstream, delay);
        accept_next(acceptor, upstream, delay);
    });
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: delay_proxy <listen port> <upstream port> <one-way delay in microseconds>\n");
        return 64;
    }
    try {
        namespace ip = boost::asio::ip;
        const auto listen = static_cast<unsigned short>(parse_bound("listen port", argv[1], 0, 65535));
        const auto upstream = static_cast<unsigned short>(parse_bound("upstream port", argv[2], 1, 65535));
        const auto delay = std::chrono::microseconds(parse_bound("delay", argv[3], 0, 10'000'000));
        boost::asio::io_context io;
        ip::tcp::acceptor acceptor(io, ip::tcp::endpoint(ip::make_address_v4("127.0.0.1"), listen));
        accept_next(acceptor, ip::tcp::endpoint(ip::make_address_v4("127.0.0.1"), upstream), delay);
        boost::asio::signal_set stop(io, SIGINT, SIGTERM);
        stop.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
        std::printf("delay_proxy ready on 127.0.0.1:%u\n", acceptor.local_endpoint().port());
        std::fflush(stdout);
        io.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "delay_proxy: %s\n", e.what());
        return 64;
    }
    return 0;
}
