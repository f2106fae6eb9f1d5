#include "attempt_plan.hpp"

#include <cstdio>

namespace shedlock::chaos {
namespace {

bool chance(std::mt19937_64& rng, double p) { return std::bernoulli_distribution(p)(rng); }

int uniform(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::string ms(int value) { return std::to_string(value) + "ms"; }

/// libfaketime's offset syntax: "+3.000" seconds.
std::string faketime_offset(int offset_ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.3f", offset_ms / 1000.0);
    return text;
}

std::vector<std::string> lock_arguments(const attempt_plan& plan, const lane& where, const run_options& options) {
    std::vector<std::string> args{"-p", where.uri, "-n", where.lock_name, "--at-most",
                                  ms(static_cast<int>(options.at_most.count()))};
    if (plan.at_least_ms > 0) args.insert(args.end(), {"--at-least", ms(plan.at_least_ms)});
    if (plan.keep_alive) args.push_back("--keep-alive");
    return args;
}

}  // namespace

std::string release_delay_request(const run_options& options, std::int64_t attempt) {
    return options.work_dir + "/" + release_delay_prefix + std::to_string(attempt);
}

std::string clock_file(const run_options& options, std::int64_t attempt) {
    return options.work_dir + "/clock-" + std::to_string(attempt) + ".rc";
}

attempt_plan draw_plan(std::mt19937_64& rng, const run_options& options, const std::vector<lane>& lanes,
                       bool can_skew, int worker, std::int64_t id) {
    const int at_most = static_cast<int>(options.at_most.count());
    attempt_plan plan;
    plan.id = id;
    plan.worker = worker;
    plan.lane = static_cast<std::size_t>(uniform(rng, 0, static_cast<int>(lanes.size()) - 1));
    plan.keep_alive = chance(rng, options.keep_alive_rate);
    plan.at_least_ms = chance(rng, 0.2) ? at_most * 3 / 20 : 0;
    plan.hold_ms = uniform(rng, 20, 150);
    if (plan.keep_alive && chance(rng, 0.08)) plan.hold_ms = at_most * 11 / 5;         // extended twice or more
    else if (!plan.keep_alive && chance(rng, 0.03)) plan.hold_ms = at_most + 600;      // the lease runs out
    if (options.faults.count("release_delay") && lanes[plan.lane].server >= 0 && chance(rng, 0.1)) {
        // A long minimum hold and a short command: the release asks for most of the hold, and
        // arrives (after the injector's hold of at_most - hold - 500 ms) with the lease still live.
        plan.delayed_release = true;
        plan.keep_alive = false;
        plan.at_least_ms = at_most * 3 / 4;
        plan.hold_ms = 100;
        return plan;
    }
    const bool offsets = options.faults.count("clock") > 0, jumps = options.faults.count("clock_jump") > 0;
    if (can_skew && (offsets || jumps) && chance(rng, options.clock_rate)) {
        const int skew = lanes[plan.lane].skew_ms;
        plan.clock = {chance(rng, 0.5) ? skew : -skew, jumps && (!offsets || chance(rng, 0.5))};
        if (plan.clock.jump) {
            // The jump comes while the lock is held, before an early unlock that must still
            // honour lock_at_least_for.
            plan.at_least_ms = at_most * 3 / 4;
            plan.hold_ms = 100;
        }
    }
    return plan;
}

spawn_request build_request(const attempt_plan& plan, const lane& where, const run_options& options,
                            const std::string& libfaketime) {
    spawn_request r;
    if (options.async_api) {
        r.argv = {options.async_path, "run", "--journal", options.work_dir + "/journal.log", "--attempt",
                  std::to_string(plan.id)};
    } else if (options.planted.empty()) {
        r.argv = {options.cli_path, "run"};
    } else {
        r.argv = {options.planted_path, "run", "--bug", options.planted, "--journal", options.work_dir + "/journal.log",
                  "--attempt", std::to_string(plan.id)};
    }
    const auto lock = lock_arguments(plan, where, options);
    r.argv.insert(r.argv.end(), lock.begin(), lock.end());
    // The command runs without libfaketime: the resource keeps real time whatever the client's clock.
    r.argv.insert(r.argv.end(), {"--", "/usr/bin/env", "-u", "LD_PRELOAD", options.resource_path, options.work_dir,
                                 std::to_string(plan.id), std::to_string(plan.hold_ms)});
    if (plan.clock.jump) r.argv.insert(r.argv.end(), {clock_file(options, plan.id), faketime_offset(plan.clock.offset_ms)});
    if (plan.delayed_release) r.argv.insert(r.argv.end(), {"--delay-release", release_delay_request(options, plan.id)});
    r.env = base_environment();
    if (plan.clock.active()) {
        r.env.push_back("LD_PRELOAD=" + libfaketime);
        r.env.push_back("FAKETIME_TIMESTAMP_FILE=" + clock_file(options, plan.id));
        r.env.push_back("FAKETIME_NO_CACHE=1");           // read the file at every clock call: jumps land at once
        r.env.push_back("FAKETIME_DONT_FAKE_MONOTONIC=1");  // timers and the journal's time base stay real
    }
    r.output_path = options.work_dir + "/out-" + std::to_string(plan.worker) + ".txt";
    return r;
}

std::string initial_clock_text(const attempt_plan& plan) {
    return plan.clock.jump ? "+0.000" : faketime_offset(plan.clock.offset_ms);
}

}  // namespace shedlock::chaos
