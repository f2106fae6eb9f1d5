#include "scripted_lock_service.hpp"

#include <shedlock/detail/lock_provider_access.hpp>
#include <shedlock/error.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <memory>

namespace shedlock::test {

using access = shedlock::detail::lock_provider_access;

template <typename Fn>
void scripted_lock_service::answer(Fn fn) {
    auto timer = std::make_shared<boost::asio::steady_timer>(executor_, answer_after);
    timer->async_wait([timer, fn = std::move(fn)](boost::system::error_code) mutable { fn(); });
}

void scripted_lock_service::start_try_lock(const lock_configuration& config, std::string owner,
                                           asio::completion<std::optional<lease>> done) {
    answer([this, config, owner = std::move(owner), done = std::move(done), fail = fail_with]() mutable {
        if (fail) return done(std::make_exception_ptr(storage_error(storage_category::unavailable, *fail, "scripted")),
                              std::nullopt);
        done(nullptr, access::try_lock(storage_, config, owner));
    });
}

void scripted_lock_service::start_unlock(lease held, asio::void_completion done) {
    answer([this, held = std::move(held), done = std::move(done), fail = fail_with]() mutable {
        if (fail) return done(std::make_exception_ptr(storage_error(storage_category::unavailable, *fail, "scripted")));
        access::unlock(storage_, held);
        ++unlocks;
        done(nullptr);
    });
}

void scripted_lock_service::start_extend(lease held, std::chrono::milliseconds at_most,
                                         std::chrono::milliseconds minimum_hold,
                                         asio::completion<std::optional<lease>> done) {
    answer([this, held = std::move(held), at_most, minimum_hold, done = std::move(done), fail = fail_with]() mutable {
        if (fail) return done(std::make_exception_ptr(storage_error(storage_category::unavailable, *fail, "scripted")),
                              std::nullopt);
        done(nullptr, access::extend(storage_, held, at_most, minimum_hold));
    });
}

}  // namespace shedlock::test
