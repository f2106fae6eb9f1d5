// A consumer of the installed package: only <shedlock/...> headers, only shedlock:: targets.
#include <shedlock/providers/sqlite_lock_provider.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>
#include <shedlock/scheduler.hpp>
#ifdef CONSUMER_WITH_REDIS
#include <shedlock/providers/redis_lock_provider.hpp>
#endif

#include <iostream>

int main(int argc, char** argv) {
#ifdef CONSUMER_WITH_REDIS
    // Only proves the optional component links; no server is needed to build its options.
    std::cout << "redis provider linked (default prefix " << shedlock::providers::redis_options{}.prefix << ")\n";
#endif
    shedlock::providers::sqlite_options options;
    options.path = argc > 1 ? argv[1] : "consumer.db";
    options.create_schema_if_missing = true;
    auto provider = shedlock::providers::make_sqlite_lock_provider(options);
    {
        auto held = provider->try_lock({"consumer", std::chrono::seconds{10}});
        if (!held) return 1;
        std::cout << "acquired with fencing token " << held->fencing_token().value_or(-1) << "\n";
    }
    shedlock::providers::sqlite_run_options run_options;
    run_options.path = options.path;
    run_options.create_schema_if_missing = true;
    auto runs = shedlock::providers::make_sqlite_run_store(run_options);
    shedlock::scheduler s(*provider, *runs);
    s.add(shedlock::make_task("consumer_task", [](shedlock::task_context& ctx) { ctx.count("ran"); },
                              shedlock::cron("0 0 2 * * ?", "Europe/Berlin"), shedlock::lock_at_most_for("PT1M")));
    s.start();
    const auto record = s.run_now("consumer_task");
    s.stop(std::chrono::seconds{5});
    std::cout << "scheduler run: " << shedlock::to_string(record.outcome) << "\n";
    return record.outcome == shedlock::run_outcome::succeeded ? 0 : 1;
}
