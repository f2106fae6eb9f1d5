#pragma once
// One client connection of delay_proxy: relayed to the upstream server, every chunk held back
// for a fixed delay in each direction (delay_proxy.cpp says why).

#include <boost/asio/ip/tcp.hpp>

#include <chrono>

namespace shedlock::bench {

/// Connects to `upstream` and relays `client` to it both ways with `delay` per direction; the
/// relay owns itself and ends (closing both sockets) when either side closes or fails.
void start_delay_relay(boost::asio::ip::tcp::socket client, boost::asio::ip::tcp::endpoint upstream,
                       std::chrono::microseconds delay);

}  // namespace shedlock::bench
