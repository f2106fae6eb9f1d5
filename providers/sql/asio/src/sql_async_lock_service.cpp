#include <shedlock/lease_timing.hpp>
#include <shedlock/providers/sql/async_connection_pool.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>
#include <shedlock/providers/sql/sql_async_lock_service.hpp>

#include <memory>

namespace shedlock::providers::sql {
namespace {

/// Completes `done` with what `read` makes of a statement's result, or with the failure.
template <typename T, typename Read>
asio::completion<sql_result> reading(asio::completion<T> done, Read read) {
    return [done = std::move(done), read = std::move(read)](std::exception_ptr failure, sql_result result) mutable {
        if (failure) return done(failure, T{});
        T value{};
        try {
            value = read(result);
        } catch (...) {
            return done(std::current_exception(), T{});
        }
        done(nullptr, std::move(value));
    };
}

class sql_async_lock_service final : public asio::lock_service {
public:
    sql_async_lock_service(const sql_lock_provider& blocking, async_connection_factory connect,
                           boost::asio::any_io_executor executor, sql_async_options options)
        : statements_(blocking.statements()),
          overflow_(std::make_shared<const fencing_overflow>(blocking.fencing_overflow_advice())),
          known_(blocking.known_names()),
          reports_(blocking.dialect().acquire_reports()),
          fencing_(blocking.supports_fencing()),
          clock_(blocking.clock()),
          executor_(executor),
          description_(std::move(options.description)),
          pool_(std::make_shared<async_connection_pool>(std::move(executor), std::move(connect), options.connections,
                                                        options.pool_wait)) {}

    executor_type get_executor() const override { return executor_; }
    bool supports_fencing() const override { return fencing_; }
    const shedlock::clock& clock() const noexcept override { return clock_; }
    std::string describe() const override { return description_; }

    void start_try_lock(const lock_configuration& config, std::string owner,
                        asio::completion<std::optional<lease>> done) override {
        slot_values v = acquire_values(config, owner, clock_.now());
        const auto asked = std::chrono::steady_clock::now();
        const statement& s =
            acquire_statement(statements_.acquire, statements_.acquire_existing, *known_, config.name(), asked);
        const bool plain_update = &s != &statements_.acquire;
        auto params = bind(s, v);
        v.name = v.owner = {};  // the copies below carry them
        auto known = statements_.acquire_existing ? known_ : nullptr;
        auto read = [this, known, config, owner = std::move(owner), v, plain_update, asked](const sql_result& r) {
            auto granted = read_acquired(r, reports_, fencing_, config, owner, v);
            if (known) known->record_answer(config.name(), plain_update, granted.has_value(), asked);
            return granted;
        };
        // The failure path may run after this service is gone (destroyed with calls in flight:
        // the pool fails them), so it holds what it needs itself and never touches `this`.
        pool_->execute(s.sql, std::move(params), false, retry_policy::when_safe,
                       [overflow = overflow_, done = reading(std::move(done), std::move(read))](
                           std::exception_ptr failure, sql_result result) mutable {
                           done(failure ? overflow->explain(failure) : nullptr, std::move(result));
                       });
    }

    void start_unlock(lease held, asio::void_completion done) override {
        const slot_values v = unlock_values(held, clock_.now(), remaining_minimum_hold(held, clock_));
        const statement& release = release_statement(statements_, held);
        // Relaxed: the release may commit asynchronously where the dialect allows it (as the
        // blocking provider's); lost in a crash, the lock merely stays until its lock_until.
        pool_->execute(release.sql, bind(release, v), true, retry_policy::when_safe_or_idle,
                       [done = std::move(done)](std::exception_ptr failure, sql_result) mutable { done(failure); });
    }

    void start_extend(lease held, std::chrono::milliseconds at_most, std::chrono::milliseconds minimum_hold,
                      asio::completion<std::optional<lease>> done) override {
        slot_values v = extend_values(held, clock_.now(), at_most);
        auto params = bind(statements_.extend, v);
        v.name = v.owner = {};
        pool_->execute(statements_.extend.sql, std::move(params), false, retry_policy::when_safe_or_idle,
                       reading(std::move(done), [this, held = std::move(held), v, minimum_hold](const sql_result& r) {
                           return read_extended(r, reports_, held, v, minimum_hold);
                       }));
    }

private:
    lock_statement_set statements_;
    std::shared_ptr<const fencing_overflow> overflow_;  // shared with calls in flight
    std::shared_ptr<known_lock_names> known_;
    acquire_result reports_;
    bool fencing_;
    const shedlock::clock& clock_;
    executor_type executor_;
    std::string description_;
    std::shared_ptr<async_connection_pool> pool_;
};

}  // namespace

std::unique_ptr<asio::lock_service> make_sql_async_lock_service(const sql_lock_provider& blocking,
                                                                async_connection_factory connect,
                                                                boost::asio::any_io_executor executor,
                                                                sql_async_options options) {
    return std::make_unique<sql_async_lock_service>(blocking, std::move(connect), std::move(executor),
                                                    std::move(options));
}

}  // namespace shedlock::providers::sql
