// The status server's cluster view in one process: /api/runs and the page's cluster panel over
// records that two instances wrote to one (memory) run store, the query's validation, durations
// as people read them. The same over real processes and backends: status_cluster_test.cpp.
#include "http_get.hpp"
#include "json_check.hpp"
#include "status_runs.hpp"
#include "status_text.hpp"

#include <shedlock/memory_run_store.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>
#include <shedlock/status_server.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using namespace std::chrono_literals;
using shedlock::test::http_get;
using shedlock::test::json_problem;

namespace {

bool body_has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

run_record cluster_record(const std::string& instance, int second, run_outcome outcome, std::chrono::milliseconds took) {
    run_record r;
    r.task = "settle";
    r.lock_name = "settle";
    r.instance = instance;
    r.scheduled_at = timestamp{1'780'000'000'000ms + std::chrono::seconds{second}};
    r.started_at = r.scheduled_at + 2ms;
    r.finished_at = r.started_at + took;
    r.outcome = outcome;
    if (outcome == run_outcome::skipped_locked) r.message = "lock held by another instance";
    return r;
}

/// A scheduler (instance "here:1") whose task never fires by itself; the store holds three
/// firings of "settle": here:1 ran two, `<b>"odd"</b>` ran one, and each skipped the others'.
struct cluster_fixture {
    providers::memory_lock_provider locks;
    memory_run_store store;
    std::unique_ptr<scheduler> s;
    std::unique_ptr<status_server> server;
    static constexpr const char* odd = "<b>\"odd\"</b>:2";

    cluster_fixture() {
        scheduler_options o;
        o.instance = "here:1";
        s = std::make_unique<scheduler>(locks, store, o);
        s->add(make_task("settle", [](task_context&) {}, cron("0 0 3 1 1 ?", "UTC"), lock_at_most_for("PT10M")));
        s->start();
        store.append(cluster_record("here:1", 0, run_outcome::succeeded, 3516ms));
        store.append(cluster_record(odd, 0, run_outcome::skipped_locked, 0ms));
        store.append(cluster_record(odd, 60, run_outcome::failed, 125'000ms));
        store.append(cluster_record("here:1", 60, run_outcome::skipped_locked, 0ms));
        store.append(cluster_record("here:1", 120, run_outcome::succeeded, 850ms));
        store.append(cluster_record(odd, 120, run_outcome::skipped_locked, 0ms));
        status_server_options listen;
        listen.port = 0;
        server = serve_status(*s, nullptr, listen);
    }
    ~cluster_fixture() {
        server.reset();
        s->stop(2s);
    }
    test::http_reply get(const std::string& path) const { return http_get(server->port(), path); }
};

}  // namespace

TEST_CASE("readable_duration: durations as people read them", "[status_server]") {
    using detail::readable_duration;
    CHECK(readable_duration(0ms) == "0 ms");
    CHECK(readable_duration(850ms) == "850 ms");
    CHECK(readable_duration(1000ms) == "1 s");
    CHECK(readable_duration(3516ms) == "3.5 s");
    CHECK(readable_duration(9999ms) == "9.9 s");
    CHECK(readable_duration(42'700ms) == "42 s");
    CHECK(readable_duration(125'000ms) == "2 min 5 s");
    CHECK(readable_duration(120'000ms) == "2 min");
    CHECK(readable_duration(3'720'000ms) == "1 h 2 min");
    CHECK(readable_duration(3 * 86'400'000ms + 4 * 3'600'000ms) == "3 d 4 h");
    CHECK(readable_duration(-1500ms) == "-1.5 s");
    CHECK(readable_duration(std::chrono::milliseconds::min()) == "-" + readable_duration(std::chrono::milliseconds::max()));
}

TEST_CASE("parse_runs_query: bounds and names", "[status_server]") {
    std::vector<task_status> known(1);
    known[0].name = "settle";
    const auto parse = [&](std::map<std::string, std::string> p) { return detail::parse_runs_query(p, known); };
    const auto q = std::get<detail::runs_query>(parse({{"task", "settle"}, {"instance", "nobody:9"}, {"limit", "1000"}}));
    CHECK(q.task == "settle");
    CHECK(q.instance == std::optional<std::string>("nobody:9"));
    CHECK(q.limit == 1000);
    CHECK(std::get<detail::runs_query>(parse({{"instance", ""}})).instance == std::nullopt);  // an empty form field
    CHECK(std::get<detail::runs_query>(parse({})).limit == detail::default_runs_limit);
    const auto error = [&](std::map<std::string, std::string> p) { return std::get<detail::runs_query_error>(parse(p)); };
    CHECK(error({{"limit", "1001"}}).status == 400);
    CHECK(body_has(error({{"limit", "0"}}).message, "limit \"0\" is not a number from 1 to 1000"));
    CHECK(body_has(error({{"limit", "99999999999999999999999"}}).message, "not a number from 1 to 1000"));
    const auto long_name = error({{"instance", std::string(256, 'h')}});
    CHECK(long_name.status == 400);
    CHECK(body_has(long_name.message, "instance \"hhhh"));
    CHECK(body_has(long_name.message, "256 bytes long; at most 255"));
    CHECK(long_name.message.size() < 200);  // not echoed in full
    CHECK(std::holds_alternative<detail::runs_query>(parse({{"instance", std::string(255, 'h')}})));
    CHECK(body_has(error({{"instance", "a\nb"}}).message, "instance \"a\nb\" contains a control character"));
    CHECK(error({{"task", "nope"}}).status == 404);
    CHECK(error({{"task", std::string(300, 't')}}).status == 400);
}

TEST_CASE("status server: /api/runs lists the cluster's firings with their instances", "[status_server]") {
    cluster_fixture f;
    const auto all = f.get("/api/runs?task=settle");
    REQUIRE(all.status == 200);
    CHECK_FALSE(json_problem(all.body));
    CHECK(body_has(all.body, "\"this_instance\":\"here:1\",\"task\":\"settle\",\"instance\":null,\"limit\":20,"));
    CHECK(occurrences(all.body, "\"instance\":\"here:1\",\"this_instance\":true") == 3);
    CHECK(occurrences(all.body, "\"instance\":\"<b>\\\"odd\\\"</b>:2\",\"this_instance\":false") == 3);
    CHECK(occurrences(all.body, "\"outcome\":\"skipped_locked\"") == 3);
    CHECK(body_has(all.body, "\"duration_ms\":3516,\"duration\":\"PT3.516S\",\"duration_text\":\"3.5 s\""));
    CHECK(body_has(all.body, "\"duration_ms\":125000,\"duration\":\"PT2M5S\",\"duration_text\":\"2 min 5 s\""));
    // Newest first: the last firing's records come first.
    CHECK(all.body.find("\"duration_text\":\"850 ms\"") < all.body.find("\"duration_text\":\"3.5 s\""));

    const auto odd = f.get("/api/runs?task=settle&instance=%3Cb%3E%22odd%22%3C%2Fb%3E%3A2");
    REQUIRE(odd.status == 200);
    CHECK_FALSE(json_problem(odd.body));
    CHECK(occurrences(odd.body, "\"lock_name\"") == 3);
    CHECK(occurrences(odd.body, "\"this_instance\":false") == 3);
    CHECK_FALSE(body_has(odd.body, "\"instance\":\"here:1\""));
    CHECK(occurrences(f.get("/api/runs?task=settle&instance=here:1&limit=2").body, "\"lock_name\"") == 2);

    const auto nobody = f.get("/api/runs?task=settle&instance=nobody:7");
    CHECK(nobody.status == 200);
    CHECK(body_has(nobody.body, "\"runs\":[]"));
    const auto too_long = f.get("/api/runs?task=settle&instance=" + std::string(300, 'x'));
    CHECK(too_long.status == 400);
    CHECK_FALSE(json_problem(too_long.body));
    CHECK(body_has(too_long.body, "instance \\\"xxx"));
    const auto control = f.get("/api/runs?task=settle&instance=a%00b%ff");
    CHECK(control.status == 400);
    CHECK_FALSE(json_problem(control.body));
    CHECK(f.get("/api/runs?task=settle&limit=1001").status == 400);
    CHECK(f.get("/api/runs?task=nope").status == 404);
}

TEST_CASE("status page: the cluster panel of a task, filtered by instance, escaped", "[status_server]") {
    cluster_fixture f;
    const auto page = f.get("/?task=settle");
    REQUIRE(page.status == 200);
    CHECK(body_has(page.body, "<section id=\"cluster\" data-task=\"settle\">"));
    CHECK(occurrences(page.body, "<tr data-instance=\"here:1\"") == 3);
    CHECK(occurrences(page.body, "<tr data-instance=\"&lt;b&gt;&quot;odd&quot;&lt;/b&gt;:2\"") == 3);
    CHECK_FALSE(body_has(page.body, "<b>\"odd\"</b>"));
    CHECK(body_has(page.body, "6 records shown: 3 ran"));
    CHECK(body_has(page.body, "last ran on <b>here:1 <small class=\"muted\">(this)</small></b>"));
    CHECK(body_has(page.body, "<td class=\"took\">2 min 5 s <small class=\"muted\">PT2M5S</small></td>"));
    CHECK(body_has(page.body, "<td class=\"took\">3.5 s <small class=\"muted\">PT3.516S</small></td>"));
    // A link per instance, its name percent-encoded in the query and escaped in the attribute.
    CHECK(body_has(page.body, "href=\"?task=settle&amp;instance=%3Cb%3E%22odd%22%3C%2Fb%3E%3A2#cluster\""));
    CHECK(body_has(page.body, "<a href=\"?task=settle#cluster\" title="));  // the task row links to its panel

    const auto filtered = f.get("/?task=settle&instance=here%3A1");
    REQUIRE(filtered.status == 200);
    CHECK(occurrences(filtered.body, "<tr data-instance=\"here:1\"") == 3);
    CHECK(occurrences(filtered.body, "<tr data-instance=") == 3);
    CHECK(body_has(filtered.body, "class=\"current\">here:1"));
    CHECK(body_has(f.get("/?task=settle&instance=nobody").body, "no records of instance nobody"));
    CHECK(f.get("/?task=nope").status == 404);
    CHECK(f.get("/?task=settle&instance=" + std::string(256, 'i')).status == 400);
    CHECK_FALSE(body_has(f.get("/").body, "<section id=\"cluster\""));  // the overview reads no run records
}
