// The asio scheduler tells a lock backend that fails every firing once, not per firing (the
// blocking scheduler's test is in backend_failure_log_test.cpp).
#include "asio_scheduler_support.hpp"
#include "unavailable_provider.hpp"
#include "wait_for.hpp"
#include "warning_log.hpp"

#include <shedlock/asio/pooled_services.hpp>
#include <shedlock/asio/scheduler.hpp>
#include <shedlock/memory_run_store.hpp>

#include <catch2/catch.hpp>


using namespace shedlock;
using namespace std::chrono_literals;

TEST_CASE("asio scheduler: a lock backend that fails every firing is told once, not per firing", "[asio_scheduler]") {
    test::io_thread io;
    auto down = std::make_shared<test::unavailable_provider>();
    asio::pooled_lock_service service(down, io.executor(), std::make_shared<asio::blocking_pool>(2));
    memory_run_store runs;
    test::warning_log warnings;
    scheduler_options options;
    options.warn = warnings.sink();
    asio::scheduler s(io.executor(), service, runs, nullptr, options);
    s.add(make_task("job", [](task_context&) {}, fixed_rate(50ms), lock_at_most_for("PT10S")));
    s.start();
    REQUIRE(test::wait_for([&] { return runs.last_runs("job", 10).size() >= 5; }, 30s));
    s.stop(10s);
    INFO(warnings.size() << " warning(s)");
    CHECK(warnings.count("task \"job\": the lock backend failed, the task did not run: connection refused") == 1);
}
