#pragma once
/// \file
/// Serves a running scheduler's metrics, health, JSON API and status page over HTTP.
/// Component shedlock::status (`find_package(shedlock CONFIG COMPONENTS status)`, pkg-config
/// shedlock-status): a program that schedules without serving links none of it.

#include <shedlock/metrics.hpp>
#include <shedlock/scheduler.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace shedlock {

/// Where and how the status server listens.
struct status_server_options {
    /// An IP literal (IPv4, or IPv6 without brackets) or "localhost". Loopback by default: expose
    /// it further only on purpose, preferably with a bearer token.
    std::string address = "127.0.0.1";
    /// 0: any free port (status_server::port() tells which).
    std::uint16_t port = 9464;
    /// Non-empty: every path except /healthz answers 401 unless the request carries
    /// `Authorization: Bearer <token>`.
    std::string bearer_token;
    /// What the page shows as the backend (give a redacted display form, never a raw URI).
    std::string backend;
    /// How often this process renews its heartbeat record: a lock named
    /// `shedlock-heartbeat:<interval ms>:<digest>` on the scheduler's provider (a reserved
    /// prefix), held by this process for the longest lease (so it outlives any lock the process
    /// holds; deleted when the server is destroyed). Every status server
    /// flags a lock as stale when its holder's heartbeat has not been renewed for three of its
    /// intervals: the holder stopped reporting (killed, frozen, cut off from the backend) and the
    /// lock would otherwise block its task until lock_at_most_for runs out. Processes that serve
    /// no status have no heartbeat and are never flagged this way. 0: no heartbeat; 100 ms
    /// (min_heartbeat_every: each beat is a backend write) to 1 h; anything else is a
    /// configuration_error.
    std::chrono::milliseconds heartbeat_every{10'000};
    /// At most this many connections are open at once, and never more than a quarter of the
    /// process's RLIMIT_NOFILE (read when serving starts), so that the scheduler's own work keeps
    /// descriptors however many clients connect. At the cap, a new connection closes the one
    /// stalled longest (for a second or more), whatever it waits for (its request, a client that
    /// does not read its answer, the backend), else the oldest; only one answering a request with
    /// the bearer token is never closed so, and when every connection is such a one the new one
    /// gets a 503 and is closed. Both are counted (`shedlock_http_connections_evicted_total`,
    /// `shedlock_http_connections_refused_total`).
    /// 1 to 10000; anything else is a configuration_error.
    std::size_t max_connections = 64;
    /// How long an answer that calls the backend (/healthz, /api/*, the page) may take: past it,
    /// 503 "backend unavailable", and at once while a call older than this is still stuck.
    /// /metrics never calls the backend. 1 ms to 1 h.
    std::chrono::milliseconds backend_timeout{5'000};
};

/// Parses `host:port` (`127.0.0.1:9464`, `[::1]:9464`, `localhost:9464`) into `options`' address and
/// port; throws configuration_error naming the text and the expected form.
void parse_http_address(std::string_view text, status_server_options& options);

/// Requests: GET and HEAD (else 405 with `Allow`); a request line and headers of at most 8 KiB
/// (else 431) and a body of at most 1 KiB (else 413, answered before the body is read); 30 s to
/// send a request before the connection is closed.
///
/// The endpoints, all GET:
/// - `/metrics`: `metrics_text()` of the registry (Prometheus text format 0.0.4);
/// - `/healthz`: 200 "ok" while the scheduler runs and the backend answers list_locks() within
///   backend_timeout, else 503; the backend's error (which names hosts, users, databases) only to
///   a caller with the bearer token, when one is set;
/// - `/api/tasks`, `/api/locks`, `/api/runs?task=<name>&limit=<n>`: JSON;
/// - `/`: a self-contained HTML status page (no external resources).
/// Requests are parsed on the scheduler's io_context (its timer thread); the answers are computed
/// on two threads of the server's own, one for those that call the backend and one for the rest,
/// so a slow backend never delays a timer, /metrics or the 401/404/405 answers. Listening on
/// every address (0.0.0.0, ::) without a bearer token is reported to the scheduler's warning sink.
/// URIs in messages have their passwords replaced by `***`.
///
/// Lifetime: destroy the server before the scheduler. stop() of the scheduler closes the server.
/// For shedlock::asio::scheduler (the scheduler on the application's executor), the overload in
/// <shedlock/asio/status_server.hpp> (component shedlock::asio_status) serves the same.
/// Thread safety: port() from any thread; the destructor from the thread that owns the server.
class status_server {
public:
    virtual ~status_server() = default;
    /// The port it listens on.
    virtual std::uint16_t port() const noexcept = 0;
};

/// Starts serving `tasks` (and `metrics`, which may be null: /metrics then answers 404) on
/// `options.address:options.port`. Throws configuration_error when an option is out of range,
/// when the address is not valid or
/// cannot be bound (port in use, no such local address), naming it and what to do; the scheduler is
/// left untouched either way.
std::unique_ptr<status_server> serve_status(scheduler& tasks, metrics_registry* metrics,
                                            status_server_options options = {});

}  // namespace shedlock
