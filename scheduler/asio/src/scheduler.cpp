// Lifecycle of the asio scheduler: construction, tasks, validate-then-start (stop and the jobs:
// scheduler_stop.cpp).
#include "asio_scheduler_impl.hpp"

#include <shedlock/error.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/utf8.hpp>

#include <boost/asio/post.hpp>

#include <iostream>

namespace shedlock::asio {

scheduler::impl::impl(boost::asio::any_io_executor executor, lock_service& l, run_store& r, claim_service* c,
                      scheduler_options o)
    : strand(boost::asio::make_strand(std::move(executor))),
      locks(l),
      runs(r),
      claims(c),
      options(std::move(o)),
      wall(options.clock ? *options.clock : system_clock::instance()) {
    if (options.instance.empty()) options.instance = instance_id();
}

void scheduler::impl::check_supported() const {
    const auto refuse_field = [](const std::string& what, const std::string& fix) {
        throw configuration_error("scheduler not started: scheduler_options::" + what +
                                  " is not supported by shedlock::asio::scheduler; " + fix);
    };
    if (options.claims) refuse_field("claims", "pass a claim_service to its constructor instead (pooled_claim_service)");
    if (options.metrics) refuse_field("metrics", "leave it null");
    if (!options.listeners.empty()) refuse_field("listeners", "leave them empty");
}

scheduler_options scheduler::impl::checked_options() const {
    auto checked = options;
    checked.claims = claims ? const_cast<detail::claims_marker*>(&marker) : nullptr;
    return checked;
}

void scheduler::impl::warn(const std::string& message) const {
    if (options.warn) {
        try {
            options.warn(message);
            return;
        } catch (...) {
        }
    }
    std::cerr << "shedlock asio scheduler: " << message << '\n';
}

scheduler::scheduler(boost::asio::any_io_executor executor, lock_service& locks, run_store& runs,
                     claim_service* claims, scheduler_options options)
    : impl_(std::make_shared<impl>(std::move(executor), locks, runs, claims, std::move(options))) {}

void scheduler::add(task_definition task) {
    if (impl_->started.load())
        throw configuration_error("task \"" + printable_text(task.name) +
                                  "\" added after start(); add every task before starting");
    impl_->definitions.push_back(std::move(task));
    impl_->bodies.emplace_back();
}

void scheduler::add(async_task task) {
    // Validation checks the definition's body: a coroutine body stands in as a body never called.
    if (task.body) task.definition.body = [](task_context&) {};
    else task.definition.body = nullptr;
    add(std::move(task.definition));
    impl_->bodies.back() = std::move(task.body);
}

void scheduler::add(const task_registry& registry) {
    for (auto& t : registry.tasks()) add(std::move(t));
}

void scheduler::start() {
    auto& s = *impl_;
    if (s.started.load()) throw configuration_error("scheduler already started; a scheduler starts once");
    s.check_supported();
    const auto checked = s.checked_options();
    check_tasks(s.definitions, checked);  // the blocking scheduler's checks and texts
    auto prepared = shedlock::detail::prepare_tasks(s.definitions, checked, s.wall.now());
    // prepare_tasks keeps the order of the definitions: their bodies line up.
    for (std::size_t i = 0; i < prepared.size(); ++i)
        s.tasks.push_back(std::make_unique<task_runtime>(std::move(prepared[i]), std::move(s.bodies[i]), s.strand));
    s.pool = std::make_unique<blocking_pool>(s.options.worker_threads);
    s.started.store(true);
    boost::asio::post(s.strand, [self = impl_] {
        if (self->stopping.load()) return;
        for (auto& t : self->tasks)
            if (t->task.active) self->spawn_job(self->task_loop(*t));
    });
}

boost::asio::any_io_executor scheduler::strand_executor() const { return impl_->strand; }

scheduler_stats scheduler::stats() const { return {impl_->firings.load(), impl_->missed.load()}; }

bool scheduler::running() const noexcept { return impl_->started.load() && !impl_->stopping.load(); }

}  // namespace shedlock::asio