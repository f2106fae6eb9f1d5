// The status server over shedlock::asio::scheduler: its sockets on the scheduler's strand (of the
// application's executor), its backend calls on the server's own threads (status_server.cpp), the
// tasks read on the strand and awaited from there (the server's backend thread, never an
// executor thread).
#include "status_source.hpp"

#include <shedlock/asio/status_server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>

#include <atomic>
#include <future>

namespace shedlock {
namespace {

using io_executor = boost::asio::io_context::executor_type;
using scheduler_strand = boost::asio::strand<boost::asio::any_io_executor>;

/// How long a read of the tasks or the closing waits for the strand: the executor may have
/// stopped running (its run() returned) with the scheduler still running.
constexpr std::chrono::seconds strand_patience{5};

class asio_source final : public detail::status_source {
public:
    asio_source(asio::scheduler& tasks, lock_provider& locks, std::chrono::milliseconds backend_timeout)
        : tasks_(tasks), locks_(locks), executor_(tasks.get_executor()), patience_(backend_timeout) {}

    /// Called on the server's backend thread: waits for the strand at most backend_timeout (past
    /// it the answer is a 503 anyway); an executor that does not run shows no tasks.
    std::vector<task_status> task_statuses() const override {
        auto statuses = tasks_.async_task_statuses(boost::asio::use_future);
        if (statuses.wait_for(patience_) != std::future_status::ready) return {};
        return statuses.get();
    }
    bool running() const noexcept override { return tasks_.running(); }
    lock_provider& provider() const noexcept override { return locks_; }
    run_store& runs() const noexcept override { return tasks_.runs(); }
    const shedlock::clock& wall_clock() const noexcept override { return tasks_.wall_clock(); }
    const std::string& instance() const noexcept override { return tasks_.instance(); }
    void warn(const std::string& message) const override { tasks_.warn(message); }
    boost::asio::any_io_executor executor() const override { return executor_; }

    /// The scheduler runs its stop hooks on its strand, where the server's state lives.
    void on_stop(std::function<void()> hook) override {
        tasks_.on_stop([hook = std::move(hook), hooks_ran = hooks_ran_] {
            hook();
            hooks_ran->store(true);
        });
    }

    void close_on_executor(std::function<void()> close) override {
        // After the stop hooks (the server is closed; their writes happen before this read), on
        // the strand, or with the io_context stopped: nothing else touches the server's state.
        if (hooks_ran_->load() || on_strand() || context_stopped()) return close();
        auto done = std::make_shared<std::promise<void>>();
        auto closed = done->get_future();
        boost::asio::post(executor_, [close, done] {
            close();
            done->set_value();
        });
        if (on_executor_thread()) return;  // it would wait for this very thread: closed later
        if (closed.wait_for(strand_patience) != std::future_status::ready)
            warn("status server: the executor did not run its closing within " + std::to_string(strand_patience.count()) +
                 " s; its connections close when the executor runs again");
    }

private:
    /// The scheduler's strand (asio::scheduler::get_executor) and what it wraps: the application's
    /// executor, recognised when it is an io_context's or a strand of one (as scheduler::stop).
    const scheduler_strand& strand() const { return *executor_.target<scheduler_strand>(); }
    bool on_strand() const { return strand().running_in_this_thread(); }
    const io_executor* io() const { return strand().get_inner_executor().target<io_executor>(); }
    bool context_stopped() const { return io() && io()->context().stopped(); }
    bool on_executor_thread() const {
        if (io()) return io()->running_in_this_thread();
        const auto* s = strand().get_inner_executor().target<boost::asio::strand<io_executor>>();
        return s && s->running_in_this_thread();
    }

    asio::scheduler& tasks_;
    lock_provider& locks_;
    boost::asio::any_io_executor executor_;  // the scheduler's strand
    std::chrono::milliseconds patience_;
    std::shared_ptr<std::atomic<bool>> hooks_ran_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace

std::unique_ptr<status_server> serve_status(asio::scheduler& tasks, lock_provider& locks, metrics_registry* metrics,
                                            status_server_options options) {
    auto source = std::make_shared<asio_source>(tasks, locks, options.backend_timeout);
    return detail::serve_status_from(std::move(source), metrics, std::move(options));
}

}  // namespace shedlock
