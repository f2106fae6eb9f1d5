#include "status_routes.hpp"
#include "status_model.hpp"
#include "status_request.hpp"
#include "status_runs.hpp"
#include "status_text.hpp"

#include <shedlock/duration.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <map>
#include <variant>

namespace shedlock::detail {
namespace {

http_answer json_answer(std::string body) { return {200, "application/json", std::move(body)}; }

/// `details`: the caller may read the backend's error (it names hosts, users, databases), which is
/// what the bearer token guards; anyone else learns only that the backend is unavailable.
http_answer unhealthy_answer(const std::string& error, bool details) {
    return {503, "text/plain; charset=utf-8",
            details ? "unavailable: the backend does not answer: " + error + "\n"
                    : std::string("unavailable: backend unavailable (the details need the bearer token)\n")};
}

http_answer health_answer(const status_source& s, bool details, health_memory& memory) {
    if (!s.running()) return {503, "text/plain; charset=utf-8", "unavailable: the scheduler is not running\n"};
    try {
        (void)inspect(s.provider()).list_locks();
    } catch (const std::exception& e) {
        const auto error = redact_uri_passwords(e.what());
        memory.remember(error);
        return unhealthy_answer(error, details);
    }
    memory.remember(std::nullopt);
    return {200, "text/plain; charset=utf-8", "ok\n"};
}

bool is_health_request(const std::string& method, const std::string& target) {
    return (method == "GET" || method == "HEAD") && target.substr(0, target.find('?')) == "/healthz";
}

http_answer json_error(unsigned status, const std::string& message) {
    return {status, "application/json", "{\"error\":" + json_string(message) + "}"};
}

/// One store read per task asked for, on the backend worker (the caller's deadline applies).
http_answer runs_answer(const status_source& s, const std::map<std::string, std::string>& params) {
    const auto tasks = s.task_statuses();
    const auto parsed = parse_runs_query(params, tasks);
    if (const auto* bad = std::get_if<runs_query_error>(&parsed)) return json_error(bad->status, bad->message);
    const auto& q = std::get<runs_query>(parsed);
    try {
        return json_answer(runs_json(q, read_runs(s.runs(), q, tasks), s.instance()));
    } catch (const std::exception& e) {
        return json_error(503, redact_uri_passwords(e.what()));
    }
}

/// The page, with the cluster panel of `?task=` when one is asked for (one store read).
http_answer page_answer(const status_source& s, heartbeat_watch& heartbeats, const std::map<std::string, std::string>& params,
                        const std::string& backend) {
    auto snapshot = take_snapshot(s, heartbeats);
    std::string panel;
    if (params.count("task") || params.count("instance")) {
        const auto parsed = parse_runs_query(params, snapshot.tasks);
        if (const auto* bad = std::get_if<runs_query_error>(&parsed))
            return {bad->status, "text/plain; charset=utf-8", well_formed_utf8(bad->message) + "\n"};
        const auto& q = std::get<runs_query>(parsed);
        if (!q.task.empty()) {
            std::vector<run_record> runs;
            std::string store_error;
            try {
                runs = read_runs(s.runs(), q, snapshot.tasks);
            } catch (const std::exception& e) {
                store_error = redact_uri_passwords(e.what());
            }
            panel = cluster_panel(q, runs, s.instance(), store_error);
        }
    }
    return {200, "text/html; charset=utf-8", status_page(snapshot, backend, panel)};
}

}  // namespace

std::string body_buffers::take() {
    std::lock_guard lock(mutex_);
    if (spare_.empty()) return {};
    auto body = std::move(spare_.back());
    spare_.pop_back();
    return body;
}

void body_buffers::give(std::string body) {
    if (body.capacity() < (1u << 20)) return;  // small bodies: the allocator does fine
    std::lock_guard lock(mutex_);
    if (spare_.size() < 2) spare_.push_back(std::move(body));
}

void health_memory::remember(std::optional<std::string> error) {
    std::lock_guard lock(mutex_);
    error_ = std::move(error);
}

std::optional<std::string> health_memory::last_error() const {
    std::lock_guard lock(mutex_);
    return error_;
}

std::optional<http_answer> status_routes::remembered_health(const std::string& method, const std::string& target,
                                                            const std::string& authorization) const {
    if (!is_health_request(method, target)) return std::nullopt;
    const auto error = health->last_error();
    if (!error) return std::nullopt;
    const bool authorized = options.bearer_token.empty() || bearer_token_matches(authorization, options.bearer_token);
    return unhealthy_answer(*error, authorized);
}

bool status_routes::needs_backend(const std::string& method, const std::string& target,
                                  const std::string& authorization) const {
    if (method != "GET" && method != "HEAD") return false;
    const std::string path = target.substr(0, target.find('?'));
    if (path == "/healthz") return true;
    const bool authorized = options.bearer_token.empty() || bearer_token_matches(authorization, options.bearer_token);
    return authorized && (path == "/" || path == "/index.html" || path.rfind("/api/", 0) == 0);
}

http_answer status_routes::backend_timeout_answer(const std::string& target) const {
    const std::string why = "backend unavailable: no answer within " + format_duration(options.backend_timeout);
    if (target.rfind("/api/", 0) == 0) return {503, "application/json", "{\"error\":" + json_string(why) + "}"};
    return {503, "text/plain; charset=utf-8",
            "unavailable: " + why + (target.rfind("/healthz", 0) == 0 ? "\n" : "; /metrics still answers\n")};
}

http_answer status_routes::answer(const std::string& method, const std::string& target,
                                  const std::string& authorization) const {
    const auto question = target.find('?');
    const std::string path = target.substr(0, question);
    if (method != "GET" && method != "HEAD") {
        http_answer refused{405, "text/plain; charset=utf-8", "only GET and HEAD\n"};
        refused.allow = "GET, HEAD";
        return refused;
    }
    const bool authorized = options.bearer_token.empty() || bearer_token_matches(authorization, options.bearer_token);
    if (path == "/healthz") return health_answer(*source, authorized, *health);
    if (!authorized) return {401, "text/plain; charset=utf-8", "missing or wrong bearer token\n", true};
    if (path == "/metrics") {
        if (!metrics) return {404, "text/plain; charset=utf-8", "no metrics registry\n"};
        auto body = buffers->take();
        metrics->metrics_text(body);
        return {200, "text/plain; version=0.0.4; charset=utf-8", std::move(body)};
    }
    const auto query = query_of(question == std::string::npos ? std::string_view{} : std::string_view(target).substr(question + 1));
    if (!query) {
        const std::string why = "malformed percent escape in the query; write %XX with two hex digits";
        if (path.rfind("/api/", 0) == 0) return json_error(400, why);
        return {400, "text/plain; charset=utf-8", why + "\n"};
    }
    const auto& params = *query;
    if (path == "/api/runs") return runs_answer(*source, params);
    if (path == "/api/tasks") return json_answer(tasks_json(take_snapshot(*source, *heartbeats)));
    if (path == "/api/locks") {
        const auto snapshot = take_snapshot(*source, *heartbeats);
        if (!snapshot.locks_error.empty())
            return {503, "application/json", "{\"error\":" + json_string(snapshot.locks_error) + "}"};
        return json_answer(locks_json(snapshot));
    }
    if (path == "/" || path == "/index.html") return page_answer(*source, *heartbeats, params, options.backend);
    return {404, "text/plain; charset=utf-8", "no such page; try /, /metrics, /healthz, /api/tasks, /api/locks, /api/runs\n"};
}

}  // namespace shedlock::detail
