// The body under an idempotency claim, as core's executor runs it (docs/idempotency.md), through
// the claim_service: claim after the lock, a done key skips the body (skipped_done), a live claim
// of another owner skips it (skipped_locked); complete() after a body that returned, fail() after
// one that threw. A completion that could not be written goes into the record and to `warn`.
#include "asio_scheduler_impl.hpp"

#include <shedlock/asio/claim_service.hpp>
#include <shedlock/detail/task_context_access.hpp>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace shedlock::asio {
namespace {

std::string key_text(const std::string& key) { return "idempotency key \"" + key + "\""; }

void add_problem(run_record& r, const std::string& text) {
    if (!r.message.empty()) r.message += "; ";
    r.message += text;
}

}  // namespace

boost::asio::awaitable<void> scheduler::impl::run_claimed(task_runtime& t, detail::firing_state& f,
                                                          const lock_configuration& config, run_record& r) {
    const auto idem = shedlock::detail::claim_for_firing(t.task, r.scheduled_at, checked_options());
    if (!idem || !claims) {
        co_await run_body(t, f, r);
        co_return;
    }
    const auto claim_for = idem->claim_for.count() > 0 ? idem->claim_for : config.lock_at_most_for();
    boost::system::error_code ec;
    auto claimed = co_await async_claim(*claims, idem->key, claim_for, r.fencing_token,
                                        boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (ec) {
        r.outcome = run_outcome::lock_error;
        r.message = key_text(idem->key) + " could not be claimed: " + ec.message();
        co_return;
    }
    if (claimed.status == claim_status::already_done) {
        r.outcome = run_outcome::skipped_done;
        r.message = key_text(idem->key) + " already done at " +
                    format_iso_timestamp(claimed.record.finished_at.value_or(claimed.record.claimed_at)) + " by " +
                    claimed.record.owner;
        co_return;
    }
    if (claimed.status == claim_status::in_progress) {
        r.outcome = run_outcome::skipped_locked;
        r.message = key_text(idem->key) + " is " + claimed.record.state + " under " + claimed.record.owner + " until " +
                    format_iso_timestamp(claimed.record.expires_at);
        co_return;
    }
    const auto claim = *claimed.claim;
    shedlock::detail::task_context_access::set_claim(f.context, claim);
    co_await run_body(t, f, r);
    const bool succeeded = r.outcome == run_outcome::succeeded;
    auto status = finish_status::finished;
    ec = {};
    if (succeeded)
        status = co_await async_complete(*claims, claim, f.context.result(),
                                         boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    else
        status = co_await async_fail(*claims, claim, r.message, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    std::string problem;
    const std::string marked = std::string(" was not marked ") + (succeeded ? "done" : "failed");
    if (ec)
        problem = key_text(claim.key) + marked + ": " + ec.message() + "; it stays claimed until " +
                  format_iso_timestamp(claim.expires_at) + (succeeded ? ", then the work may run again" : "");
    else if (status == finish_status::claim_lost)
        problem = key_text(claim.key) + marked + ": the claim was no longer this run's (reset, deleted, or expired at " +
                  format_iso_timestamp(claim.expires_at) + " and taken over)" +
                  (succeeded ? "; its work may run again" : "");
    if (problem.empty()) co_return;
    add_problem(r, problem);
    warn("task \"" + t.task.definition.name + "\": " + problem);
}

}  // namespace shedlock::asio
