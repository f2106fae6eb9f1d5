#include "health_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/resource.h>

#include <algorithm>

namespace asio_service {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;
using boost::asio::use_awaitable;

struct health_server::shared {
    shared(boost::asio::any_io_executor ex, std::function<std::string()> s) : acceptor(ex), status(std::move(s)) {}
    tcp::acceptor acceptor;
    std::function<std::string()> status;
    std::atomic<int> connections{0};
    const int limit = health_server::connection_limit();
};

namespace {

http::response<http::string_body> answer(const http::request<http::empty_body>& request, const std::string& json) {
    const bool health = request.method() == http::verb::get && request.target() == "/health";
    http::response<http::string_body> response{health ? http::status::ok : http::status::not_found,
                                               request.version()};
    response.set(http::field::content_type, health ? "application/json" : "text/plain");
    response.body() = health ? "{\"status\":\"ok\"," + json.substr(1) + "\n" : "only GET /health is served\n";
    response.keep_alive(request.keep_alive());
    response.prepare_payload();
    return response;
}

// One connection: requests in turn (keep-alive) until the client closes, errs or idles.
boost::asio::awaitable<void> serve(std::shared_ptr<health_server::shared> self, tcp::socket socket) {
    boost::beast::tcp_stream stream(std::move(socket));
    boost::beast::flat_buffer buffer(8192);  // the most a request may take in the buffer
    try {
        for (;;) {
            http::request_parser<http::empty_body> parser;
            parser.header_limit(4096);
            stream.expires_after(health_server::io_timeout);
            co_await http::async_read(stream, buffer, parser, use_awaitable);
            const auto response = answer(parser.get(), self->status());
            stream.expires_after(health_server::io_timeout);
            co_await http::async_write(stream, response, use_awaitable);
            if (!response.keep_alive()) break;
        }
    } catch (const std::exception&) {
        // Closed by the client, timed out, or a malformed/oversized request: drop the connection.
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    --self->connections;
}

boost::asio::awaitable<void> accept_loop(std::shared_ptr<health_server::shared> self) {
    for (;;) {
        tcp::socket socket(self->acceptor.get_executor());
        boost::system::error_code ec;
        co_await self->acceptor.async_accept(socket, boost::asio::redirect_error(use_awaitable, ec));
        if (ec == boost::asio::error::operation_aborted || !self->acceptor.is_open()) co_return;
        if (ec) {  // the peer reset before accept, or out of descriptors: pause, do not spin
            boost::asio::steady_timer pause(self->acceptor.get_executor(), std::chrono::milliseconds{50});
            co_await pause.async_wait(boost::asio::redirect_error(use_awaitable, ec));
            continue;
        }
        if (++self->connections > self->limit) {
            --self->connections;
            continue;  // the socket closes as it goes out of scope
        }
        boost::asio::co_spawn(self->acceptor.get_executor(), serve(self, std::move(socket)), boost::asio::detached);
    }
}

}  // namespace

int health_server::connection_limit() {
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY) return max_connections;
    const long spare = (static_cast<long>(files.rlim_cur) - reserved_descriptors) / 2;
    return static_cast<int>(std::clamp<long>(spare, 1, max_connections));
}

health_server::health_server(boost::asio::any_io_executor executor, unsigned short port,
                             std::function<std::string()> status)
    : shared_(std::make_shared<shared>(executor, std::move(status))) {
    const tcp::endpoint endpoint(boost::asio::ip::make_address("127.0.0.1"), port);
    auto& acceptor = shared_->acceptor;
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    try {
        acceptor.bind(endpoint);
    } catch (const boost::system::system_error& e) {
        throw boost::system::system_error(e.code(), "cannot listen on 127.0.0.1:" + std::to_string(port) +
                                                        "; pass --port with a free port, or 0 for any");
    }
    acceptor.listen();
    port_ = acceptor.local_endpoint().port();
}

void health_server::start() { boost::asio::co_spawn(shared_->acceptor.get_executor(), accept_loop(shared_), boost::asio::detached); }

void health_server::stop() {
    boost::asio::post(shared_->acceptor.get_executor(), [self = shared_] {
        boost::system::error_code ignored;
        self->acceptor.close(ignored);
    });
}

}  // namespace asio_service
