#include "status_routes.hpp"
#include "status_model.hpp"
#include "status_text.hpp"

#include <algorithm>
#include <charconv>
#include <map>

namespace shedlock::detail {
namespace {

bool same_secret(const std::string& a, const std::string& b) {
    // Constant time in the content: a wrong token's prefix does not answer faster.
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % std::max<std::size_t>(b.size(), 1)]);
    return diff == 0 && !b.empty();
}

std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') out += ' ';
        else if (s[i] == '%' && i + 2 < s.size()) {
            int v = 0;
            const auto r = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
            if (r.ec == std::errc{} && r.ptr == s.data() + i + 3) {
                out += static_cast<char>(v);
                i += 2;
            } else {
                out += s[i];
            }
        } else out += s[i];
    }
    return out;
}

std::map<std::string, std::string> query_of(std::string_view query) {
    std::map<std::string, std::string> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const auto pair = query.substr(0, amp);
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos) out[percent_decode(pair.substr(0, eq))] = percent_decode(pair.substr(eq + 1));
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    }
    return out;
}

http_answer json_answer(std::string body) { return {200, "application/json", std::move(body)}; }

http_answer health_answer(scheduler& s) {
    if (!s.running()) return {503, "text/plain; charset=utf-8", "unavailable: the scheduler is not running\n"};
    try {
        (void)s.provider().list_locks();
    } catch (const std::exception& e) {
        return {503, "text/plain; charset=utf-8",
                "unavailable: the backend does not answer: " + redact_uri_passwords(e.what()) + "\n"};
    }
    return {200, "text/plain; charset=utf-8", "ok\n"};
}

http_answer runs_answer(scheduler& s, const std::map<std::string, std::string>& q) {
    std::size_t limit = 20;
    if (const auto it = q.find("limit"); it != q.end()) {
        const auto& v = it->second;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), limit);
        if (r.ec != std::errc{} || r.ptr != v.data() + v.size() || limit == 0 || limit > 1000)
            return {400, "application/json", "{\"error\":" + json_string("limit \"" + v + "\" is not a number from 1 to 1000") + "}"};
    }
    const auto task = q.count("task") ? q.at("task") : std::string();
    if (!task.empty()) {
        const auto known = s.task_statuses();
        if (std::none_of(known.begin(), known.end(), [&](const task_status& t) { return t.name == task; }))
            return {404, "application/json", "{\"error\":" + json_string("no task named \"" + task + "\"") + "}"};
    }
    try {
        return json_answer(runs_json(s, task, limit));
    } catch (const std::exception& e) {
        return {503, "application/json", "{\"error\":" + json_string(redact_uri_passwords(e.what())) + "}"};
    }
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

http_answer status_routes::answer(const std::string& method, const std::string& target,
                                  const std::string& authorization) const {
    const auto question = target.find('?');
    const std::string path = target.substr(0, question);
    if (method != "GET" && method != "HEAD") return {405, "text/plain; charset=utf-8", "only GET and HEAD\n"};
    if (path == "/healthz") return health_answer(tasks);
    if (!options.bearer_token.empty()) {
        const std::string prefix = "Bearer ";
        const bool ok = authorization.size() > prefix.size() && authorization.compare(0, prefix.size(), prefix) == 0 &&
                        same_secret(authorization.substr(prefix.size()), options.bearer_token);
        if (!ok) return {401, "text/plain; charset=utf-8", "missing or wrong bearer token\n", true};
    }
    if (path == "/metrics") {
        if (!metrics) return {404, "text/plain; charset=utf-8", "no metrics registry\n"};
        auto body = buffers->take();
        metrics->metrics_text(body);
        return {200, "text/plain; version=0.0.4; charset=utf-8", std::move(body)};
    }
    if (path == "/api/runs")
        return runs_answer(tasks, query_of(question == std::string::npos ? std::string_view{} : std::string_view(target).substr(question + 1)));
    if (path == "/api/tasks") return json_answer(tasks_json(take_snapshot(tasks, *heartbeats)));
    if (path == "/api/locks") {
        const auto snapshot = take_snapshot(tasks, *heartbeats);
        if (!snapshot.locks_error.empty())
            return {503, "application/json", "{\"error\":" + json_string(snapshot.locks_error) + "}"};
        return json_answer(locks_json(snapshot));
    }
    if (path == "/" || path == "/index.html")
        return {200, "text/html; charset=utf-8", status_page(take_snapshot(tasks, *heartbeats), options.backend)};
    return {404, "text/plain; charset=utf-8", "no such page; try /, /metrics, /healthz, /api/tasks, /api/locks, /api/runs\n"};
}

}  // namespace shedlock::detail
