// Two scheduler instances in separate processes on one shared run store (a SQLite file, a
// PostgreSQL database, a Redis server), each with its status server, running the same task:
// /api/runs?task= from either lists the firings both executed and the ones each skipped, with
// the instance names; ?instance= only that instance's; durations in three spellings; the JSON
// parses; the page's cluster panel shows both. A test whose server is not configured fails.
#include "http_get.hpp"
#include "json_check.hpp"
#include "postgres_test_server.hpp"
#include "redis_test_support.hpp"
#include "server_env.hpp"
#include "status_text.hpp"
#include "test_env.hpp"
#include "wait_for.hpp"

#include <shedlock/all_providers.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/scheduler.hpp>
#include <shedlock/status_server.hpp>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <regex>
#include <set>
#include <thread>
#include <utility>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::http_get;
using shedlock::test::json_problem;
using shedlock::test::wait_for;

namespace {

const std::string alpha = "alpha";
const std::string beta = "beta <&\"'>";  // escaped in JSON and HTML, percent-encoded in links
const std::string beta_query = "beta%20%3C%26%22%27%3E";

/// The child's life: a scheduler on `uri` whose task "tick" fires every second (300 ms of work,
/// held at least 600 ms, so the other instance's firing of that second is skipped), its status
/// server's port written to `ready_fd`, until the parent closes `stop_fd`.
int serve_until_told(const std::string& uri, const std::string& instance, int ready_fd, int stop_fd) {
    register_all_providers();
    open_request request;
    request.create_schema = true;
    auto locks = open_lock_provider(uri, request);
    auto runs = open_run_store(uri, request);
    scheduler_options o;
    o.instance = instance;
    scheduler s(*locks, *runs, o);
    s.add(make_task("tick", [](task_context&) { std::this_thread::sleep_for(300ms); },  // the task's work
                    cron("* * * * * *", "UTC"), lock_at_most_for("PT10S"), lock_at_least_for("600ms")));
    s.start();
    status_server_options listen;
    listen.port = 0;
    auto server = serve_status(s, nullptr, listen);
    const std::uint16_t port = server->port();
    if (::write(ready_fd, &port, sizeof port) != sizeof port) return 4;
    char c;
    while (::read(stop_fd, &c, 1) > 0) {}  // EOF: the parent wants us gone
    server.reset();
    s.stop(5s);
    return 0;
}

/// The write ends of the stop pipes of running children: a later child must not hold them
/// open (it inherits them at fork), or an earlier child would never see its pipe's end.
std::set<int>& stop_fds_of_others() {
    static std::set<int> fds;
    return fds;
}

/// A child running serve_until_told; one that a failed REQUIRE leaves behind is stopped too.
struct instance_process {
    pid_t pid = -1;
    int stop_fd = -1;
    std::uint16_t port = 0;
    instance_process(pid_t p, int fd) : pid(p), stop_fd(fd) {}
    instance_process(instance_process&& o) noexcept : pid(std::exchange(o.pid, -1)), stop_fd(o.stop_fd), port(o.port) {}
    instance_process& operator=(instance_process&& o) noexcept {
        std::swap(pid, o.pid);
        std::swap(stop_fd, o.stop_fd);
        std::swap(port, o.port);
        return *this;
    }
    ~instance_process() {
        if (pid < 0) return;
        stop_fds_of_others().erase(stop_fd);
        ::close(stop_fd);
        ::waitpid(pid, nullptr, 0);
    }
};

instance_process start_instance(const std::string& uri, const std::string& instance) {
    int ready[2], stop[2];
    REQUIRE(::pipe(ready) == 0);
    REQUIRE(::pipe(stop) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(ready[0]);
        ::close(stop[1]);
        for (const int fd : stop_fds_of_others()) ::close(fd);
        int code = 3;
        try {
            code = serve_until_told(uri, instance, ready[1], stop[0]);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "instance %s: %s\n", instance.c_str(), e.what());
        }
        ::_exit(code);
    }
    ::close(ready[1]);
    ::close(stop[0]);
    instance_process p(pid, stop[1]);
    stop_fds_of_others().insert(stop[1]);
    const auto got = ::read(ready[0], &p.port, sizeof p.port);  // returns when it serves, or died
    ::close(ready[0]);
    REQUIRE(got == static_cast<ssize_t>(sizeof p.port));
    return p;
}

void stop_instance(instance_process& p) {
    if (p.pid < 0) return;
    stop_fds_of_others().erase(p.stop_fd);
    ::close(p.stop_fd);
    int status = 0;
    ::waitpid(p.pid, &status, 0);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    p.pid = -1;
}

struct run_row {
    std::string instance, outcome, duration, duration_text;
    bool this_instance = false;
    long long duration_ms = 0;
};

/// The runs of an /api/runs answer (its fields are written in a fixed order).
std::vector<run_row> rows_of(const std::string& body) {
    static const std::regex run(
        R"re("instance":("(?:[^"\\]|\\.)*"),"this_instance":(true|false),[^{]*"run":\{"outcome":"(\w+)",[^{}]*?"duration_ms":(-?\d+),"duration":"([^"]*)","duration_text":"([^"]*)")re");
    std::vector<run_row> out;
    for (std::sregex_iterator it(body.begin(), body.end(), run), end; it != end; ++it) {
        const auto& m = *it;
        out.push_back({test::json_string_value(m[1].str()).value_or("?"), m[3], m[5], m[6], m[2] == "true",
                       std::stoll(m[4])});
    }
    return out;
}

std::vector<run_row> cluster_runs(std::uint16_t port, const std::string& query = "") {
    const auto reply = http_get(port, "/api/runs?task=tick&limit=50" + query);
    if (reply.status != 200) return {};
    return rows_of(reply.body);
}

bool has_run(const std::vector<run_row>& rows, const std::string& instance, const std::string& outcome) {
    return std::any_of(rows.begin(), rows.end(),
                       [&](const run_row& r) { return r.instance == instance && r.outcome == outcome; });
}

/// What either instance's server answers once both have run and skipped "tick".
void check_cluster_view(std::uint16_t port, const std::string& me) {
    INFO("asking the status server of " << me);
    const auto reply = http_get(port, "/api/runs?task=tick&limit=200");
    REQUIRE(reply.status == 200);
    const auto problem = json_problem(reply.body);
    CHECK_FALSE(problem);
    const auto rows = rows_of(reply.body);
    std::size_t records = 0;
    for (auto at = reply.body.find("\"lock_name\""); at != std::string::npos; at = reply.body.find("\"lock_name\"", at + 1))
        ++records;
    REQUIRE(rows.size() == records);  // the pattern read every run
    for (const auto& name : {alpha, beta}) CHECK(has_run(rows, name, "succeeded"));
    CHECK((has_run(rows, alpha, "skipped_locked") || has_run(rows, beta, "skipped_locked")));
    for (const auto& r : rows) {
        CHECK((r.instance == alpha || r.instance == beta));
        CHECK(r.this_instance == (r.instance == me));
        CHECK(r.duration == format_duration(std::chrono::milliseconds{r.duration_ms}));
        CHECK(r.duration_text == detail::readable_duration(std::chrono::milliseconds{r.duration_ms}));
        if (r.outcome == "succeeded") CHECK(r.duration_ms >= 300);
    }
    for (const auto& [name, query] : {std::pair{alpha, alpha}, std::pair{beta, beta_query}}) {
        const auto only = http_get(port, "/api/runs?task=tick&limit=200&instance=" + query);
        CHECK_FALSE(json_problem(only.body));
        const auto mine = rows_of(only.body);
        CHECK(has_run(mine, name, "succeeded"));
        CHECK(std::all_of(mine.begin(), mine.end(), [&](const run_row& r) { return r.instance == name; }));
    }
    const auto nobody = http_get(port, "/api/runs?task=tick&instance=gamma");
    CHECK(nobody.status == 200);
    CHECK(nobody.body.find("\"runs\":[]") != std::string::npos);
    const auto too_long = http_get(port, "/api/runs?task=tick&instance=" + std::string(256, 'g'));
    CHECK(too_long.status == 400);
    CHECK_FALSE(json_problem(too_long.body));
    CHECK(too_long.body.find("instance") != std::string::npos);

    const auto page = http_get(port, "/?task=tick");
    REQUIRE(page.status == 200);
    CHECK(page.body.find("<section id=\"cluster\" data-task=\"tick\">") != std::string::npos);
    CHECK(page.body.find("<tr data-instance=\"alpha\" data-outcome=\"succeeded\">") != std::string::npos);
    CHECK(page.body.find("<tr data-instance=\"beta &lt;&amp;&quot;&#39;&gt;\" data-outcome=\"succeeded\">") !=
          std::string::npos);
    CHECK(page.body.find(beta) == std::string::npos);  // never raw
}

/// A's firings, then both (one skips each second), then B's alone (A stopped), then A again:
/// both executed "tick" and the skips are recorded, whatever the race of each second decides.
void run_two_instances(const std::string& uri) {
    INFO("backend " << uri);
    auto a = start_instance(uri, alpha);
    INFO("waiting (30 s at most) for alpha's first run");
    REQUIRE(wait_for([&] { return has_run(cluster_runs(a.port), alpha, "succeeded"); }, 30s));
    auto b = start_instance(uri, beta);
    INFO("waiting (30 s at most) for a firing skipped while the other instance held the lock");
    REQUIRE(wait_for([&] {
        const auto rows = cluster_runs(b.port);
        return has_run(rows, alpha, "skipped_locked") || has_run(rows, beta, "skipped_locked");
    }, 30s));
    stop_instance(a);
    INFO("waiting (30 s at most) for beta to run the task once alpha stopped");
    REQUIRE(wait_for([&] { return has_run(cluster_runs(b.port, "&instance=" + beta_query), beta, "succeeded"); }, 30s));
    a = start_instance(uri, alpha);
    check_cluster_view(a.port, alpha);
    check_cluster_view(b.port, beta);
    stop_instance(a);
    stop_instance(b);
}

std::string with_options(std::string uri, const std::string& options) {
    return uri + (uri.find('?') == std::string::npos ? "?" : "&") + options;
}

/// Runs `cleanup` now (what an interrupted earlier run left) and again when it goes; a failed
/// cleanup does not hide the test's result.
struct scratch_guard {
    std::function<void()> cleanup;
    explicit scratch_guard(std::function<void()> c) : cleanup(std::move(c)) { cleanup(); }
    ~scratch_guard() {
        try {
            cleanup();
        } catch (...) {
        }
    }
};

}  // namespace

TEST_CASE("cluster view: two processes on one SQLite file", "[status_cluster][multiprocess]") {
    run_two_instances("sqlite:" + test::scratch_dir() + "/cluster.db");
}

TEST_CASE("cluster view: two processes on one PostgreSQL database", "[status_cluster][multiprocess]") {
    const std::string locks = "cluster_locks_" + std::to_string(::getpid()), runs = "cluster_runs_" + std::to_string(::getpid());
    scratch_guard tables([&] { test::postgres_server::exec("DROP TABLE IF EXISTS " + locks + ", " + runs); });
    run_two_instances(with_options(test::postgres_server::uri(), "table=" + locks + "&runs_table=" + runs));
}

TEST_CASE("cluster view: two processes on one Redis server", "[status_cluster][multiprocess]") {
    const auto uri = test::required_env("SHEDLOCK_TEST_REDIS_URI", "providers/redis/server.sh start");
    const auto prefix = test::unique_prefix("cluster");
    scratch_guard keys([&] {
        test::raw_redis(test::redis_test_options())
            .text({"EVAL", "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 0", "0",
                   prefix + "*"});
    });
    run_two_instances(with_options(uri, "prefix=" + prefix));
}
