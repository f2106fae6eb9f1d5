#include <shedlock/asio/async_session.hpp>

namespace shedlock::asio {

async_registry& async_registry::global() {
    static async_registry instance;
    return instance;
}

void async_registry::add(async_registration driver) {
    const std::lock_guard guard(mutex_);
    for (const auto& d : drivers_)
        if (d->name == driver.name) return;
    drivers_.push_back(std::make_unique<async_registration>(std::move(driver)));
}

const async_registration* async_registry::find(const std::string& name) const {
    const std::lock_guard guard(mutex_);
    for (const auto& d : drivers_)
        if (d->name == name) return d.get();
    return nullptr;
}

async_session::async_session(std::unique_ptr<backend_session> blocking, const async_registration* driver,
                             provider_uri uri, lock_service::executor_type executor, const async_open_request& request)
    : blocking_(std::move(blocking)),
      driver_(request.prefer_pool || !driver ? std::nullopt : std::optional<async_registration>(*driver)),
      uri_(std::move(uri)),
      executor_(std::move(executor)),
      request_(request) {}

// The services are shared: calls in flight and live handles keep them (and the pool and the
// blocking parts they hold) alive after the session, each to its last user.
async_session::~async_session() {
    locks_.reset();
    claims_.reset();
    pool_.reset();
}

std::shared_ptr<blocking_pool> async_session::pool() {
    if (!pool_) pool_ = std::make_shared<blocking_pool>(request_.pool_threads);
    return pool_;
}

bool async_session::native_locks() const noexcept { return driver_ && driver_->open_locks; }

std::shared_ptr<lock_service> async_session::share_locks() {
    const std::lock_guard guard(mutex_);
    if (!locks_) {
        if (native_locks()) locks_ = driver_->open_locks(uri_, *blocking_, executor_);
        else locks_ = std::make_shared<pooled_lock_service>(blocking_->share_locks(), executor_, pool());
    }
    return locks_;
}

lock_service& async_session::locks() { return *share_locks(); }

std::shared_ptr<claim_service> async_session::share_claims() {
    const std::lock_guard guard(mutex_);
    if (!claims_) {
        if (driver_ && driver_->open_claims) claims_ = driver_->open_claims(uri_, *blocking_, executor_);
        else claims_ = std::make_shared<pooled_claim_service>(blocking_->share_claims(), executor_, pool());
    }
    return claims_;
}

claim_service& async_session::claims() { return *share_claims(); }

std::unique_ptr<async_session> open_async_backend(const std::string& text, lock_service::executor_type executor,
                                                  const async_open_request& request, const provider_registry& providers,
                                                  const async_registry& drivers) {
    auto blocking = open_backend(text, request.blocking, providers);
    const auto* driver = drivers.find(blocking->backend_name());
    return std::make_unique<async_session>(std::move(blocking), driver, parse_provider_uri(text), std::move(executor),
                                           request);
}

}  // namespace shedlock::asio
