// The figures of one backend: per kind of firing, each metric's median [min-max] over the rounds
// for the provider and the raw floor, and the provider/raw ratio computed round by round.
#include "fleet_run.hpp"

#include <cstdio>
#include <functional>

namespace shedlock::bench::fleet {

namespace {

using metric = std::function<double(const firing_result&)>;

struct metric_row {
    const char* label;
    metric value;
    bool postgres_only = false, pooled_only = false, contended_only = false;
};

double per_decision(double total, const firing_result& f) { return f.decisions ? total / static_cast<double>(f.decisions) : 0; }

std::vector<metric_row> metric_rows() {
    return {
        {"decision latency p50 (ms)", [](const firing_result& f) { return f.latency.p50_us / 1000; }},
        {"decision latency p99 (ms)", [](const firing_result& f) { return f.latency.p99_us / 1000; }},
        {"decision latency max (ms)", [](const firing_result& f) { return f.latency.max_us / 1000; }},
        {"server CPU per firing (ms)", [](const firing_result& f) { return f.server_cpu_ns / 1e6; }},
        {"server CPU per decision (us)", [](const firing_result& f) { return per_decision(f.server_cpu_ns / 1000, f); }},
        {"PgBouncer CPU per decision (us)", [](const firing_result& f) { return per_decision(f.pooler_cpu_ns / 1000, f); },
         false, true},
        {"statements/decision (server-wide; Redis: with script calls)",
         [](const firing_result& f) { return per_decision(f.after.statements - f.before.statements, f); }},
        {"table scans per decision (its statements)",
         [](const firing_result& f) { return per_decision(f.after.table_scans - f.before.table_scans, f); }, true},
        {"rows written per decision", [](const firing_result& f) { return per_decision(f.after.rows_written - f.before.rows_written, f); },
         true},
        {"WAL bytes per firing (server-wide)", [](const firing_result& f) { return f.after.wal_bytes - f.before.wal_bytes; }, true},
        {"WAL bytes per acquisition", [](const firing_result& f) {
             return f.acquisitions ? (f.after.wal_bytes - f.before.wal_bytes) / static_cast<double>(f.acquisitions) : 0;
         }, true, false, true},
        {"server connections held", [](const firing_result& f) { return static_cast<double>(f.live.server_connections); }},
        {"client connections held", [](const firing_result& f) { return static_cast<double>(f.live.client_connections); }},
    };
}

std::vector<double> values_of(const std::vector<firing_result>& firings, const metric& m) {
    std::vector<double> values;
    for (const auto& f : firings) values.push_back(m(f));
    return values;
}

std::vector<double> ratios_of(const std::vector<firing_result>& provider, const std::vector<firing_result>& raw, const metric& m) {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < provider.size() && i < raw.size(); ++i)
        if (m(raw[i]) != 0) ratios.push_back(m(provider[i]) / m(raw[i]));
    return ratios;
}

void print_kind(const backend_firings& b, int kind) {
    const auto& provider = b.of[kind][0];
    const auto& raw = b.of[kind][1];
    const bool postgres = b.backend != "redis", pooled = b.backend == "pgbouncer";
    std::printf("  %s firings: %-54s %-26s %-26s %s\n", kind == 0 ? "contended" : "refused", "", "provider", "raw floor",
                "provider/raw");
    for (const auto& row : metric_rows()) {
        if ((row.postgres_only && !postgres) || (row.pooled_only && !pooled) || (row.contended_only && kind != 0)) continue;
        const auto ratios = ratios_of(provider, raw, row.value);
        std::printf("    %-62s %-26s %-26s %s\n", row.label, format(median_of(values_of(provider, row.value)), "%.3f").c_str(),
                    format(median_of(values_of(raw, row.value)), "%.3f").c_str(),
                    ratios.empty() ? "-" : format(median_of(ratios), "%.2f").c_str());
    }
}

/// Each firing's server CPU per decision next to its table scans per decision (PostgreSQL): a
/// refusal is one scan as the plain UPDATE of a known record, two as the full statement (a
/// sighting older than known_record_ttl), so the pairs separate the two prices.
void print_firings(const backend_firings& b) {
    for (int kind = 0; kind < 2; ++kind)
        for (int side = 0; side < 2; ++side) {
            std::printf("  %s %s, each round: server CPU us/decision @ table scans/decision:", kind == 0 ? "contended" : "refused",
                        side == 0 ? "provider" : "raw");
            for (const auto& f : b.of[kind][side])
                std::printf(" %.1f@%.2f", per_decision(f.server_cpu_ns / 1000, f),
                            per_decision(f.after.table_scans - f.before.table_scans, f));
            std::printf("\n");
        }
}

/// Totals that must be 0 (duplicates, errors) or tell what a firing really was.
void print_checks(const backend_firings& b) {
    for (int kind = 0; kind < 2; ++kind)
        for (int side = 0; side < 2; ++side) {
            long decisions = 0, acquisitions = 0, duplicates = 0, errors = 0, unacquired = 0, late = 0;
            bool settled = true;
            std::string error;
            for (const auto& f : b.of[kind][side]) {
                decisions += f.decisions, acquisitions += f.acquisitions, duplicates += f.duplicates;
                errors += f.errors, unacquired += f.unacquired, late += f.late_connections;
                settled = settled && f.after.settled;
                if (error.empty()) error = f.first_error;
            }
            std::printf("  %s %s: %ld decisions, %ld acquisitions, %ld tasks taken twice, %ld untaken, %ld errors%s%s, "
                        "%ld connections opened mid-firing%s\n",
                        kind == 0 ? "contended" : "refused", side == 0 ? "provider" : "raw", decisions, acquisitions,
                        duplicates, unacquired, errors, error.empty() ? "" : " (first: ", error.empty() ? "" : (error + ")").c_str(),
                        late, settled ? "" : ", statistics unsettled");
        }
}

}  // namespace

void report_backend(const fleet_options& options, const backend_firings& b) {
    if (b.backend.empty()) return;
    std::printf("\n%s (%s): %d instances x %d tasks, %d threads each, %d rounds; medians [min-max] over rounds\n",
                b.backend.c_str(), b.server_version.c_str(), options.instances, options.tasks, options.threads, options.rounds);
    print_kind(b, 0);
    print_kind(b, 1);
    const metric cpu = [](const firing_result& f) { return per_decision(f.server_cpu_ns / 1000, f); };
    std::printf("  server CPU per refusal (us): provider %s, raw %s\n", format(median_of(values_of(b.of[1][0], cpu)), "%.2f").c_str(),
                format(median_of(values_of(b.of[1][1], cpu)), "%.2f").c_str());
    // What an acquisition with its release costs beyond a refusal, from the two kinds of firing.
    const double refusal = median_of(values_of(b.of[1][0], cpu)).median;
    const double n_minus_1 = options.instances - 1;
    const metric acquisition = [&](const firing_result& f) {
        return (f.server_cpu_ns / 1000 - n_minus_1 * static_cast<double>(options.tasks) * refusal) / options.tasks;
    };
    std::printf("  server CPU per task beyond its N-1 refusals (acquisition, release, contention; us): provider %s\n",
                format(median_of(values_of(b.of[0][0], acquisition)), "%.2f").c_str());
    if (b.backend == "redis")
        std::printf("  Redis memory per held lock (MEMORY USAGE of its lock key + fence key): %.0f bytes\n", b.redis_bytes_per_held_lock);
    if (b.backend != "redis") print_firings(b);
    print_checks(b);
}

}  // namespace shedlock::bench::fleet
