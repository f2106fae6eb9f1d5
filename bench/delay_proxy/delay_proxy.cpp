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
#include <boost/asio/steady_timer.hpp>

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

/// Accepts connections until the io_context stops. A failed accept (out of descriptors: EMFILE)
/// is tried again 100 ms later, not at once: at once it would spin a core until one is free.
struct accept_loop {
    boost::asio::ip::tcp::acceptor& acceptor;
    boost::asio::ip::tcp::endpoint upstream;
    std::chrono::microseconds delay;
    boost::asio::steady_timer pause{acceptor.get_executor()};

    void next() {
        acceptor.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket client) {
            if (ec == boost::asio::error::operation_aborted) return;
            if (!ec) {
                shedlock::bench::start_delay_relay(std::move(client), upstream, delay);
                return next();
            }
            pause.expires_after(std::chrono::milliseconds(100));
            pause.async_wait([this](boost::system::error_code e) {
                if (!e) next();
            });
        });
    }
};

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
        if (listen == upstream)
            throw std::invalid_argument("listen port " + std::to_string(listen) +
                                        " is the upstream port: the proxy would relay to itself; give two ports");
        boost::asio::io_context io;
        ip::tcp::acceptor acceptor(io);
        const ip::tcp::endpoint local(ip::make_address_v4("127.0.0.1"), listen);
        boost::system::error_code ec;
        acceptor.open(local.protocol());
        acceptor.set_option(ip::tcp::acceptor::reuse_address(true));
        if (acceptor.bind(local, ec); ec)
            throw std::invalid_argument("cannot listen on 127.0.0.1:" + std::to_string(listen) + ": " + ec.message() +
                                        "; give a free port (0: any)");
        acceptor.listen();
        accept_loop loop{acceptor, ip::tcp::endpoint(ip::make_address_v4("127.0.0.1"), upstream), delay};
        loop.next();
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
