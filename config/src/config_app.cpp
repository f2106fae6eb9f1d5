#include <shedlock/config_app.hpp>
#include <shedlock/config_tasks.hpp>
#include <shedlock/error.hpp>

namespace shedlock {

configured_app open_from_config(const std::string& path, task_registry& tasks, const provider_registry& registry) {
    configured_app app;
    app.config = load_config(path);
    if (app.config.provider.empty())
        throw configuration_error(path + ": [shedlock] provider is missing; add provider = \"sqlite:/var/lib/app/locks.db\"");
    apply_config(tasks, app.config);  // configuration errors before any connection
    open_request request;
    request.create_schema = true;
    request.retention.max_per_task = app.config.run_retention;
    // One session: the locks, the run records and the claims share its one pool.
    const auto session = open_backend(app.config.provider, request, registry);
    app.locks = session->make_locks();
    app.runs = session->make_runs();
    auto options = scheduler_options_from(app.config);
    bool keyed = false;
    for (const auto& task : tasks.tasks()) keyed = keyed || !task.idempotency_key.empty();
    if (keyed) {
        app.claims = session->make_claims();
        options.claims = app.claims.get();
    }
    app.scheduler = std::make_unique<shedlock::scheduler>(*app.locks, *app.runs, options);
    for (auto& task : tasks.tasks()) app.scheduler->add(std::move(task));
    return app;
}

}  // namespace shedlock
