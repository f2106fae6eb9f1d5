// The status server's sockets: Boost.Beast on the scheduler's executor (status_source.hpp: the
// blocking scheduler's io_context, or the asio scheduler's strand). Requests are read and answers
// written there; answers are computed on two worker threads of the
// server's own: one for those that call the backend (under a deadline), one for the rest.
#include "asio_timer_service.hpp"
#include "instance_heartbeat.hpp"
#include "status_request.hpp"
#include "status_server_options.hpp"
#include "status_source.hpp"
#include "status_routes.hpp"

#include <shedlock/error.hpp>
#include <shedlock/heartbeat_record.hpp>
#include <shedlock/status_server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/resource.h>

#include <optional>

namespace shedlock {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

class http_session;

/// The connection cap: the configured one, and at most a quarter of the descriptors this
/// process may open, so that the scheduler's commands and connections always find some.
std::size_t connection_cap(std::size_t configured) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return configured;
    return std::max<std::size_t>(1, std::min<std::size_t>(configured, limit.rlim_cur / 4));
}

/// Counted refusals, when the server has a metrics registry.
struct connection_counters {
    metric_counter* refused = nullptr;
    metric_counter* evicted = nullptr;
    explicit connection_counters(metrics_registry* m) {
        if (!m) return;
        refused = &m->counter("shedlock_http_connections_refused_total",
                              "Connections to the status server closed at once: the connection cap was reached and "
                              "every open connection was answering a request with the bearer token");
        evicted = &m->counter("shedlock_http_connections_evicted_total",
                              "Connections closed to make room under the cap: the one stalled longest (waiting for its "
                              "request, for the client to read its answer, or for the backend), else the oldest");
    }
};

/// Shared by the acceptor's and the sessions' handlers; closed on the io thread.
struct http_server_state {
    http_server_state(const boost::asio::any_io_executor& io, detail::status_routes r, boost::asio::thread_pool& backend,
                      boost::asio::thread_pool& quick, metrics_registry* metrics)
        : acceptor(io), retry(io), routes(std::move(r)), backend_worker(&backend), quick_worker(&quick),
          cap(connection_cap(routes.options.max_connections)), counters(metrics) {}
    tcp::acceptor acceptor;
    boost::asio::steady_timer retry;  // after a failed accept
    detail::status_routes routes;
    boost::asio::thread_pool* backend_worker;  // answers that call the backend
    boost::asio::thread_pool* quick_worker;    // the others: /metrics, 401, 404, 405
    std::size_t cap;
    connection_counters counters;
    /// When the backend worker's current call started (steady clock, ns), 0 when it is idle.
    std::atomic<std::int64_t> backend_call_started{0};
    /// Backend calls posted and not yet finished (or skipped).
    std::atomic<int> backend_calls_pending{0};
    bool closed = false;                              // io thread only (or with the io stopped)
    std::vector<std::weak_ptr<http_session>> sessions;  // io thread only
    void close();
    /// Makes room for one more connection; false when every open one answers a request with the
    /// bearer token (refuse it).
    bool admit_one_more();
};

/// One answer that calls the backend, raced against its deadline on the io thread.
struct pending_answer {
    std::atomic<bool> abandoned{false};  // the deadline passed: the worker skips the call
    bool settled = false;                // io thread only: answered or timed out
};

/// What a request may wait for, and for how long a peer may take an answer: a status answer is
/// small, and a peer that reads nothing for this long is gone (or never meant to read).
constexpr std::chrono::seconds request_timeout{30};
constexpr std::chrono::seconds answer_write_timeout{10};

/// Where a connection stands, for choosing which one makes room under the cap.
enum class session_stage { waiting_for_request, computing, waiting_for_backend, writing, lingering };

/// Which connection goes first under the cap: lower class, then the older `since`. Lingering ones
/// first; then those stalled for a while (no progress: waiting for their request, for their
/// client to read, for the backend), the longest stalled first; then the oldest connection. Not
/// by last progress alone: a flood that keeps making progress (pipelining, reconnecting) would
/// push out every newcomer before its request is read.
constexpr std::chrono::seconds stalled_after{1};
struct eviction_rank {
    int eviction_class;
    std::chrono::steady_clock::time_point since;
    bool operator<(const eviction_rank& o) const {
        return eviction_class != o.eviction_class ? eviction_class < o.eviction_class : since < o.since;
    }
};

class http_session : public std::enable_shared_from_this<http_session> {
public:
    http_session(tcp::socket socket, std::shared_ptr<http_server_state> state)
        : stream_(std::move(socket)), deadline_(stream_.get_executor()), state_(std::move(state)) {}

    void read() {
        parser_.emplace();
        detail::limit_request_parser(*parser_);
        progressed(session_stage::waiting_for_request);
        token_authorized_ = false;
        stream_.expires_after(request_timeout);
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }
    void close() {
        beast::error_code ignored;
        stream_.socket().close(ignored);
        deadline_.cancel();
        if (pending_) pending_->abandoned = true;  // a queued backend call is skipped
    }
    bool open() const { return stream_.socket().is_open(); }
    /// How readily it makes room under the cap; nullopt while it answers a request that carries
    /// the configured bearer token (a flood without the token cannot push out a scrape with it;
    /// the backend deadline and the write timeout bound how long that lasts).
    std::optional<eviction_rank> rank(std::chrono::steady_clock::time_point now) const {
        if (stage_ == session_stage::lingering) return eviction_rank{0, {}};
        if (token_authorized_ && stage_ != session_stage::waiting_for_request) return std::nullopt;
        if (stage_ != session_stage::computing && now - since_ >= stalled_after) return eviction_rank{1, since_};
        return eviction_rank{2, accepted_};
    }

private:
    void progressed(session_stage next) {
        stage_ = next;
        since_ = std::chrono::steady_clock::now();
    }

    void on_read(beast::error_code ec) {
        if (state_->closed) return close();
        if (ec) {
            if (const auto status = detail::refusal_status(ec)) return refuse(status);
            return close();
        }
        request_ = parser_->release();
        auto method = std::string(request_.method_string());
        auto target = std::string(request_.target());
        auto authorization = std::string(request_[http::field::authorization]);
        const auto& token = state_->routes.options.bearer_token;
        token_authorized_ = !token.empty() && detail::bearer_token_matches(authorization, token);
        if (!state_->routes.needs_backend(method, target, authorization)) {
            progressed(session_stage::computing);
            boost::asio::post(*state_->quick_worker, [self = shared_from_this(), method, target, authorization] {
                auto answer = self->state_->routes.answer(method, target, authorization);
                boost::asio::post(self->stream_.get_executor(),
                                  [self, answer = std::move(answer)]() mutable { self->write(std::move(answer)); });
            });
            return;
        }
        answer_before_deadline(std::move(method), std::move(target), std::move(authorization));
    }

    /// The backend may not answer at all (a frozen server): the deadline answers 503 instead, and
    /// a call still queued behind a stuck one is skipped. The worker holds no session, so a
    /// stuck call keeps no connection open.
    void answer_before_deadline(std::string method, std::string target, std::string authorization) {
        progressed(session_stage::waiting_for_backend);
        if (backend_stuck()) return write(state_->routes.backend_timeout_answer(target));
        if (state_->backend_calls_pending > 0)
            if (auto failed = state_->routes.remembered_health(method, target, authorization)) return write(std::move(*failed));
        auto pending = pending_ = std::make_shared<pending_answer>();
        deadline_.expires_after(state_->routes.options.backend_timeout);
        deadline_.async_wait([self = shared_from_this(), pending, target](beast::error_code ec) {
            if (ec || pending->settled) return;
            pending->settled = true;
            pending->abandoned = true;
            self->write(self->state_->routes.backend_timeout_answer(target));
        });
        std::weak_ptr<http_session> weak = shared_from_this();
        ++state_->backend_calls_pending;
        boost::asio::post(*state_->backend_worker, [state = state_, weak, pending, method, target, authorization,
                                                    io = stream_.get_executor()] {
            if (pending->abandoned) return void(--state->backend_calls_pending);
            state->backend_call_started = steady_nanoseconds();
            auto answer = state->routes.answer(method, target, authorization);
            state->backend_call_started = 0;
            --state->backend_calls_pending;
            boost::asio::post(io, [weak, pending, answer = std::move(answer)]() mutable {
                const auto self = weak.lock();
                if (!self || pending->settled) return;
                pending->settled = true;
                self->deadline_.cancel();
                self->write(std::move(answer));
            });
        });
    }

    static std::int64_t steady_nanoseconds() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    /// The backend worker is in a call older than the deadline (a frozen server): answering at
    /// once keeps a flood of /healthz from holding connections for the deadline each.
    bool backend_stuck() const {
        const auto started = state_->backend_call_started.load();
        const auto deadline = std::chrono::duration_cast<std::chrono::nanoseconds>(state_->routes.options.backend_timeout);
        return started != 0 && steady_nanoseconds() - started >= deadline.count();
    }

    /// Answers a request that broke a limit, then closes (see linger()).
    void refuse(unsigned status) {
        request_ = {};
        close_after_write_ = true;
        write({status, "text/plain; charset=utf-8",
               status == 413 ? "request body too large\n" : status == 431 ? "request header too large\n" : "bad request\n"});
    }

    void write(detail::http_answer answer) {
        if (state_->closed) return close();
        progressed(session_stage::writing);
        pending_.reset();
        response_ = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(answer.status),
                                                                        request_.version());
        response_->set(http::field::server, "shedlock");
        response_->set(http::field::content_type, answer.content_type);
        response_->set(http::field::cache_control, "no-store");
        if (answer.challenge) response_->set(http::field::www_authenticate, "Bearer realm=\"shedlock\"");
        if (!answer.allow.empty()) response_->set(http::field::allow, answer.allow);
        const bool head = request_.method() == http::verb::head;
        response_->body() = std::move(answer.body);
        response_->keep_alive(!close_after_write_ && request_.keep_alive());
        response_->prepare_payload();
        if (head) response_->body().clear();  // keeps the Content-Length of the GET
        stream_.expires_after(answer_write_timeout);
        http::async_write(stream_, *response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            self->state_->routes.buffers->give(std::move(self->response_->body()));
            if (ec || !self->response_->keep_alive() || self->state_->closed) return self->linger();
            self->read();
        });
    }

    /// Closes after the answer: the sending side first, then what the client still sends is read
    /// and dropped (a little, briefly), so that closing does not reset the connection before the
    /// client has read the answer.
    void linger() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        if (state_->closed || !open()) return close();
        stage_ = session_stage::lingering;  // the first to make room under the cap
        stream_.expires_after(std::chrono::seconds{2});
        drain();
    }
    void drain() {
        stream_.async_read_some(boost::asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
            self->drained_ += n;
            if (ec || self->drained_ > 64 * 1024 || self->state_->closed) return self->close();
            self->drain();
        });
    }

    beast::tcp_stream stream_;
    boost::asio::steady_timer deadline_;  // of the answer being computed, when it calls the backend
    beast::flat_buffer buffer_{detail::max_buffered_request_bytes};
    std::optional<detail::request_parser> parser_;
    http::request<http::string_body> request_;
    std::shared_ptr<http::response<http::string_body>> response_;
    std::shared_ptr<http_server_state> state_;
    std::shared_ptr<pending_answer> pending_;  // of the backend call this connection waits for
    session_stage stage_ = session_stage::waiting_for_request;
    std::chrono::steady_clock::time_point since_{};  // of its last progress: accepted, request read, answer ready
    const std::chrono::steady_clock::time_point accepted_ = std::chrono::steady_clock::now();
    bool token_authorized_ = false;                  // its request carries the configured bearer token
    bool close_after_write_ = false;
    std::array<char, 4096> discard_{};
    std::size_t drained_ = 0;
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

bool http_server_state::admit_one_more() {
    std::erase_if(sessions, [](const auto& w) {
        const auto live = w.lock();
        return !live || !live->open();
    });
    if (sessions.size() < cap) return true;
    auto first = sessions.end();
    std::optional<eviction_rank> first_rank;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = sessions.begin(); it != sessions.end(); ++it) {
        const auto rank = it->lock()->rank(now);
        if (rank && (!first_rank || *rank < *first_rank)) first = it, first_rank = rank;
    }
    if (first == sessions.end()) return false;
    first->lock()->close();
    sessions.erase(first);
    if (counters.evicted) counters.evicted->inc();
    return true;
}

/// Turns a connection away at once: a short 503 if the socket takes it without waiting, then close.
void refuse_connection(tcp::socket& socket) {
    static constexpr std::string_view busy =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 21\r\n"
        "Connection: close\r\n\r\ntoo many connections\n";
    beast::error_code ignored;
    socket.non_blocking(true, ignored);
    socket.write_some(boost::asio::buffer(busy.data(), busy.size()), ignored);
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    socket.close(ignored);
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
        if (!state->admit_one_more()) {
            refuse_connection(socket);
            if (state->counters.refused) state->counters.refused->inc();
        } else {
            auto session = std::make_shared<http_session>(std::move(socket), state);
            state->sessions.push_back(session);
            session->read();
        }
        accept_next(state);
    });
}

/// The heartbeat's timers on the backend thread, each beat counted as a backend call like an
/// answer's: a beat stuck on a frozen backend has the requests behind it answered 503 at once
/// (backend_stuck), as a stuck answer does.
class backend_call_timers final : public timer_service {
public:
    backend_call_timers(timer_service& on_backend_thread, std::shared_ptr<http_server_state> state)
        : inner_(on_backend_thread), state_(std::move(state)) {}
    timer_id call_after(std::chrono::steady_clock::duration delay, std::function<void()> callback) override {
        return inner_.call_after(delay, [state = state_, callback = std::move(callback)] {
            state->backend_call_started = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch()).count();
            callback();
            state->backend_call_started = 0;
        });
    }
    void cancel(timer_id id) noexcept override { inner_.cancel(id); }

private:
    timer_service& inner_;
    std::shared_ptr<http_server_state> state_;
};

class status_server_impl final : public status_server {
public:
    explicit status_server_impl(detail::status_routes routes)
        : source_(routes.source), io_(source_->executor()),
          state_(std::make_shared<http_server_state>(io_, routes, backend_worker_, quick_worker_, routes.metrics)) {}

    ~status_server_impl() override {
        // First: its timer is pending on the backend thread, which join() below would wait for.
        heartbeat_.reset();
        source_->close_on_executor([state = state_] { state->close(); });
        // A backend call stuck past its deadline is still waited for here: the provider's own
        // timeouts bound it (see the providers' connection options).
        quick_worker_.join();
        backend_worker_.join();
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
            source_->provider(), every, [source = source_](const std::string& m) { source->warn(m); },
            heartbeat_timers_);
    }

private:
    std::shared_ptr<detail::status_source> source_;
    boost::asio::any_io_executor io_;
    boost::asio::thread_pool backend_worker_{1};  // declared before state_, which points to them
    boost::asio::thread_pool quick_worker_{1};
    // The heartbeat beats on the backend thread: a beat is a backend call (never on the io thread).
    detail::asio_timer_service backend_timers_{backend_worker_.get_executor()};
    std::shared_ptr<http_server_state> state_;
    backend_call_timers heartbeat_timers_{backend_timers_, state_};
    std::uint16_t port_ = 0;
    std::unique_ptr<detail::instance_heartbeat> heartbeat_;  // stopped (its record deleted) first
};

}  // namespace

std::unique_ptr<status_server> detail::serve_status_from(std::shared_ptr<status_source> source,
                                                         metrics_registry* metrics, status_server_options options) {
    validate_status_options(options);  // before listening: nothing is bound or written
    auto server = std::make_unique<status_server_impl>(status_routes{source, metrics, options});
    server->listen(options);
    server->start_heartbeat(options.heartbeat_every);  // after listening: a bad address writes nothing
    warn_if_open_to_all(*source, options, server->port());
    source->on_stop([weak = std::weak_ptr<http_server_state>(server->state())] {
        if (auto state = weak.lock()) state->close();
    });
    return server;
}

std::unique_ptr<status_server> serve_status(scheduler& tasks, metrics_registry* metrics, status_server_options options) {
    return detail::serve_status_from(detail::blocking_status_source(tasks), metrics, std::move(options));
}

}  // namespace shedlock
