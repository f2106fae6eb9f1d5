// The status server over the blocking scheduler: its io_context (the timer thread) carries the
// sockets, its provider the inspection and the heartbeat; what serve_status(scheduler&) did before
// the status_source seam.
#include "scheduler_impl.hpp"
#include "status_source.hpp"

#include <boost/asio/post.hpp>

#include <future>

namespace shedlock::detail {
namespace {

class blocking_source final : public status_source {
public:
    explicit blocking_source(scheduler& tasks) : tasks_(tasks) {}

    std::vector<task_status> task_statuses() const override { return tasks_.task_statuses(); }
    bool running() const noexcept override { return tasks_.running(); }
    lock_provider& provider() const noexcept override { return tasks_.provider(); }
    run_store& runs() const noexcept override { return tasks_.runs(); }
    const shedlock::clock& wall_clock() const noexcept override { return tasks_.wall_clock(); }
    const std::string& instance() const noexcept override { return scheduler_access::instance(tasks_); }
    void warn(const std::string& message) const override { scheduler_access::warn(tasks_, message); }
    boost::asio::any_io_executor executor() const override { return scheduler_access::io(tasks_).get_executor(); }
    /// The scheduler runs its stop hooks on the timer thread, the io_context's only thread.
    void on_stop(std::function<void()> hook) override { tasks_.on_stop(std::move(hook)); }

    void close_on_executor(std::function<void()> close) override {
        if (!tasks_.running()) return close();  // not started, or stopped (its stop hook closed it already)
        std::promise<void> done;  // the io thread runs: close there, and wait for it
        boost::asio::post(scheduler_access::io(tasks_), [&close, &done] {
            close();
            done.set_value();
        });
        done.get_future().wait();
    }

private:
    scheduler& tasks_;
};

}  // namespace

std::shared_ptr<status_source> blocking_status_source(scheduler& tasks) { return std::make_shared<blocking_source>(tasks); }

}  // namespace shedlock::detail
