#pragma once
/// \file
/// A move-only callable wrapper: completions hold Asio handlers, which may be move-only
/// (use_awaitable's, a promise's), so std::function cannot carry them.

#include <memory>
#include <type_traits>
#include <utility>

namespace shedlock::asio::detail {

template <typename Signature>
class unique_function;

template <typename R, typename... Args>
class unique_function<R(Args...)> {
public:
    unique_function() = default;
    template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, unique_function>>>
    unique_function(F&& f) : target_(std::make_unique<model<std::decay_t<F>>>(std::forward<F>(f))) {}
    unique_function(unique_function&&) noexcept = default;
    unique_function& operator=(unique_function&&) noexcept = default;

    R operator()(Args... args) { return target_->call(std::forward<Args>(args)...); }
    explicit operator bool() const noexcept { return static_cast<bool>(target_); }

private:
    struct concept_ {
        virtual ~concept_() = default;
        virtual R call(Args... args) = 0;
    };
    template <typename F>
    struct model final : concept_ {
        explicit model(F&& f) : fn(std::move(f)) {}
        explicit model(const F& f) : fn(f) {}
        R call(Args... args) override { return fn(std::forward<Args>(args)...); }
        F fn;
    };
    std::unique_ptr<concept_> target_;
};

}  // namespace shedlock::asio::detail
