#pragma once
/// \file
/// Serves a running scheduler's metrics, health, JSON API and status page over HTTP.

#include <shedlock/metrics.hpp>
#include <shedlock/scheduler.hpp>

#include <chrono>
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
    /// no status have no heartbeat and are never flagged this way. 0: no heartbeat; 1 ms to 1 h;
    /// anything else is a configuration_error.
    std::chrono::milliseconds heartbeat_every{10'000};
};

/// Parses `host:port` (`127.0.0.1:9464`, `[::1]:9464`, `localhost:9464`) into `options`' address and
/// port; throws configuration_error naming the text and the expected form.
void parse_http_address(std::string_view text, status_server_options& options);

/// The endpoints, all GET:
/// - `/metrics`: `metrics_text()` of the registry (Prometheus text format 0.0.4);
/// - `/healthz`: 200 "ok" while the scheduler runs and the backend answers list_locks(), else 503
///   with the reason;
/// - `/api/tasks`, `/api/locks`, `/api/runs?task=<name>&limit=<n>`: JSON;
/// - `/`: a self-contained HTML status page (no external resources).
/// Requests are parsed on the scheduler's io_context (its timer thread); the answers that call the
/// backend are computed on one thread of the server's own, so a slow backend never delays a timer.
/// URIs in messages have their passwords replaced by `***`.
///
/// Lifetime: destroy the server before the scheduler. stop() of the scheduler closes the server.
/// Thread safety: port() from any thread; the destructor from the thread that owns the server.
class status_server {
public:
    virtual ~status_server() = default;
    /// The port it listens on.
    virtual std::uint16_t port() const noexcept = 0;
};

/// Starts serving `tasks` (and `metrics`, which may be null: /metrics then answers 404) on
/// `options.address:options.port`. Throws configuration_error when the address is not valid or
/// cannot be bound (port in use, no such local address), naming it and what to do; the scheduler is
/// left untouched either way.
std::unique_ptr<status_server> serve_status(scheduler& tasks, metrics_registry* metrics,
                                            status_server_options options = {});

}  // namespace shedlock
