// The status server's sockets: Boost.Beast on the scheduler's io_context. Requests are read and
// answers written on the timer thread; answers are computed on one worker thread of the server's
// own (they may call the backend).
#include "instance_heartbeat.hpp"
#include "scheduler_impl.hpp"
#include "status_routes.hpp"

#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>
#include <shedlock/status_server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <charconv>
#include <future>

namespace shedlock {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

class http_session;

/// Shared by the acceptor's and the sessions' handlers; closed on the io thread.
struct http_server_state {
    http_server_state(boost::asio::io_context& io, detail::status_routes r, boost::asio::thread_pool& w)
        : acceptor(io), retry(io), routes(std::move(r)), workers(&w) {}
    tcp::acceptor acceptor;
    boost::asio::steady_timer retry;  // after a failed accept
    detail::status_routes routes;
    boost::asio::thread_pool* workers;
    bool closed = false;                              // io thread only (or with the io stopped)
    std::vector<std::weak_ptr<http_session>> sessions;  // io thread only
    void close();
};

class http_session : public std::enable_shared_from_this<http_session> {
public:
    http_session(tcp::socket socket, std::shared_ptr<http_server_state> state)
        : stream_(std::move(socket)), state_(std::move(state)) {}

    void read() {
        request_ = {};
        stream_.expires_after(std::chrono::seconds{30});
        http::async_read(stream_, buffer_, request_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }
    void close() {
        beast::error_code ignored;
        stream_.socket().close(ignored);
    }

private:
    void on_read(beast::error_code ec) {
        if (ec || state_->closed) return close();
        auto method = std::string(request_.method_string());
        auto target = std::string(request_.target());
        auto authorization = std::string(request_[http::field::authorization]);
        boost::asio::post(*state_->workers, [self = shared_from_this(), method, target, authorization] {
            auto answer = self->state_->routes.answer(method, target, authorization);
            boost::asio::post(self->stream_.get_executor(),
                              [self, answer = std::move(answer)]() mutable { self->write(std::move(answer)); });
        });
    }

    void write(detail::http_answer answer) {
        if (state_->closed) return close();
        response_ = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(answer.status),
                                                                        request_.version());
        response_->set(http::field::server, "shedlock");
        response_->set(http::field::content_type, answer.content_type);
        response_->set(http::field::cache_control, "no-store");
        if (answer.challenge) response_->set(http::field::www_authenticate, "Bearer realm=\"shedlock\"");
        const bool head = request_.method() == http::verb::head;
        response_->body() = std::move(answer.body);
        response_->keep_alive(request_.keep_alive());
        response_->prepare_payload();
        if (head) response_->body().clear();  // keeps the Content-Length of the GET
        stream_.expires_after(std::chrono::seconds{30});
        http::async_write(stream_, *response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            self->state_->routes.buffers->give(std::move(self->response_->body()));
            if (ec || !self->response_->keep_alive() || self->state_->closed) {
                beast::error_code ignored;
                self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                return self->close();
            }
            self->read();
        });
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    http::request<http::string_body> request_;
    std::shared_ptr<http::response<http::string_body>> response_;
    std::shared_ptr<http_server_state> state_;
};

void http_server_state::close() {
    if (closed) return;
    closed = true;
    beast::error_code ignored;
    acceptor.close(ignored);
    retry.cancel();
    for (auto& s : sessions)
        if (auto live = s.lock()) live->close();
    sessions.clear();
}

void accept_next(const std::shared_ptr<http_server_state>& state) {
    state->acceptor.async_accept([state](beast::error_code ec, tcp::socket socket) {
        if (state->closed) return;
        if (ec) {
            // E.g. out of file descriptors: retry a little later instead of spinning on the timer
            // thread, which the scheduler's timers share.
            state->retry.expires_after(std::chrono::milliseconds{100});
            state->retry.async_wait([state](beast::error_code) {
                if (!state->closed) accept_next(state);
            });
            return;
        }
        auto session = std::make_shared<http_session>(std::move(socket), state);
        std::erase_if(state->sessions, [](const auto& w) { return w.expired(); });
        state->sessions.push_back(session);
        session->read();
        accept_next(state);
    });
}

class status_server_impl final : public status_server {
public:
    status_server_impl(scheduler& tasks, boost::asio::io_context& io, detail::status_routes routes)
        : tasks_(tasks), io_(io), state_(std::make_shared<http_server_state>(io, std::move(routes), workers_)) {}

    ~status_server_impl() override {
        if (tasks_.running()) {  // the io thread runs: close there, and wait for it
            std::promise<void> done;
            boost::asio::post(io_, [this, &done] {
                state_->close();
                done.set_value();
            });
            done.get_future().wait();
        } else {
            state_->close();  // not started, or stopped (its stop hook closed it already)
        }
        workers_.join();
    }

    void listen(const status_server_options& o) {
        beast::error_code ec;
        auto address = boost::asio::ip::make_address(o.address == "localhost" ? "127.0.0.1" : o.address, ec);
        const std::string shown = (o.address.find(':') != std::string::npos ? "[" + o.address + "]" : o.address) +
                                  ":" + std::to_string(o.port);
        if (ec) throw configuration_error("HTTP address \"" + o.address + "\" is not an IP address; write e.g. 127.0.0.1:9464");
        const tcp::endpoint endpoint(address, o.port);
        auto& a = state_->acceptor;
        if (!a.open(endpoint.protocol(), ec) && !a.set_option(tcp::acceptor::reuse_address(true), ec) &&
            !a.bind(endpoint, ec) && !a.listen(boost::asio::socket_base::max_listen_connections, ec)) {
            port_ = a.local_endpoint().port();
            boost::asio::post(io_, [state = state_] { accept_next(state); });
            return;
        }
        throw configuration_error("cannot serve HTTP on " + shown + ": " + ec.message() +
                                  (ec == boost::asio::error::address_in_use
                                       ? "; another process uses this port: pick another port or stop that process"
                                       : "; use a local address of this host"));
    }

    std::shared_ptr<http_server_state> state() const { return state_; }
    std::uint16_t port() const noexcept override { return port_; }
    void start_heartbeat(std::chrono::milliseconds every) {
        if (every == std::chrono::milliseconds{0}) return;
        heartbeat_ = std::make_unique<detail::instance_heartbeat>(
            tasks_.provider(), every, [&tasks = tasks_](const std::string& m) { detail::scheduler_access::warn(tasks, m); });
    }

private:
    scheduler& tasks_;
    boost::asio::io_context& io_;
    boost::asio::thread_pool workers_{1};  // declared before state_, which points to it
    std::shared_ptr<http_server_state> state_;
    std::uint16_t port_ = 0;
    std::unique_ptr<detail::instance_heartbeat> heartbeat_;  // stopped (its record deleted) first
};

}  // namespace

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
    beast::error_code ec;
    if (host != "localhost") (void)boost::asio::ip::make_address(std::string(host), ec);
    if (ec) throw bad("does not start with an IP address (host names are not resolved)");
    options.address = std::string(host);
    options.port = static_cast<std::uint16_t>(value);
}

std::unique_ptr<status_server> serve_status(scheduler& tasks, metrics_registry* metrics, status_server_options options) {
    validate_heartbeat_every(options.heartbeat_every);  // before listening: nothing is bound or written
    auto server = std::make_unique<status_server_impl>(tasks, detail::scheduler_access::io(tasks),
                                                       detail::status_routes{tasks, metrics, options});
    server->listen(options);
    server->start_heartbeat(options.heartbeat_every);  // after listening: a bad address writes nothing
    tasks.on_stop([weak = std::weak_ptr<http_server_state>(server->state())] {
        if (auto state = weak.lock()) state->close();
    });
    return server;
}

}  // namespace shedlock
