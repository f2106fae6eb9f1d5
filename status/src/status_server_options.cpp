// The status server's options: the address text, the limits, and the warning for an open bind.
#include "status_server_options.hpp"
#include "status_source.hpp"

#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace shedlock {
namespace detail {

void validate_status_options(const status_server_options& o) {
    validate_heartbeat_every(o.heartbeat_every);
    if (o.max_connections < 1 || o.max_connections > 10'000)
        throw configuration_error("status server max_connections " + std::to_string(o.max_connections) +
                                  " is out of range; give 1 to 10000 (default 64)");
    if (o.backend_timeout < std::chrono::milliseconds{1} || o.backend_timeout > std::chrono::hours{1})
        throw configuration_error("status server backend_timeout " + std::to_string(o.backend_timeout.count()) +
                                  " ms is out of range; give 1 ms to 1 h (default 5 s)");
}

// Every address of the host without a token: whoever reaches the port reads the tasks, locks,
// runs and their messages. Allowed (a private network may want it), never silently.
void warn_if_open_to_all(const status_source& tasks, const status_server_options& o, std::uint16_t port) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(o.address == "localhost" ? "127.0.0.1" : o.address, ec);
    // [::ffff:0.0.0.0] is 0.0.0.0 written as IPv6: on Linux it accepts every IPv4 address too.
    const bool mapped_any = !ec && address.is_v6() && address.to_v6().is_v4_mapped() &&
                            boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()).is_unspecified();
    if (ec || !(address.is_unspecified() || mapped_any) || !o.bearer_token.empty()) return;
    const auto shown = (address.is_v6() ? "[" + o.address + "]" : o.address) + ":" + std::to_string(port);
    tasks.warn("the status server listens on " + shown +
               ", every address of this host, without a bearer token: anyone who "
               "reaches the port reads the tasks, locks and runs; set a bearer token "
               "(the CLI reads SHEDLOCK_HTTP_TOKEN) or listen on 127.0.0.1");
}

}  // namespace detail

void parse_http_address(std::string_view text, status_server_options& options) {
    const std::string shown(text);
    const auto bad = [&shown](const std::string& why) {
        return configuration_error("HTTP address \"" + shown + "\" " + why +
                                   "; write host:port, e.g. 127.0.0.1:9464 or [::1]:9464");
    };
    std::string_view host, port;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find("]:");
        if (close == std::string_view::npos) throw bad("has no port after the ']'");
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string_view::npos) throw bad("has no port");
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (host.find(':') != std::string_view::npos) throw bad("is IPv6 without brackets");
    }
    if (host.empty()) throw bad("has no host");
    unsigned value = 0;
    const auto r = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || r.ec != std::errc{} || r.ptr != port.data() + port.size() || value > 65535)
        throw bad("has port \"" + std::string(port) + "\", not a number from 0 to 65535");
    boost::system::error_code ec;
    if (host != "localhost") (void)boost::asio::ip::make_address(std::string(host), ec);
    if (ec) throw bad("does not start with an IP address (host names are not resolved)");
    options.address = std::string(host);
    options.port = static_cast<std::uint16_t>(value);
}

}  // namespace shedlock
