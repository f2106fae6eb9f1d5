#pragma once
// How one instance decides a task: through the library's lock_provider as the scheduler does
// (try_lock with lock_at_most_for and lock_at_least_for, the body, unlock), or through the raw
// client floor issuing the provider's very statements or scripts with libpq or hiredis.

#include <shedlock/lock_provider.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace shedlock::bench::fleet {

/// Where and how the instances of one backend lock.
struct decider_setup {
    std::string backend;  ///< postgres | pgbouncer | redis
    std::string uri;      ///< from the environment, never printed
    std::string redis_prefix;
    int threads = 4;  ///< connections per instance
    std::chrono::milliseconds hold{5000};
    std::chrono::milliseconds at_most{60000};
};

/// The PostgreSQL table every fleet run locks in.
inline constexpr const char* fleet_table = "bench_fleet";

/// One worker thread's way to decide names, one at a time. Not thread-safe: one per thread.
class decider {
public:
    virtual ~decider() = default;
    /// Tries `name` once; true when this instance took it. Throws when the backend failed.
    virtual bool try_acquire(const std::string& name) = 0;
    /// Releases what the last successful try_acquire took; the lock stays until the hold ends.
    virtual void release() = 0;
};

using decider_factory = std::function<std::unique_ptr<decider>()>;

/// The library's provider for `setup` (pool of `threads` connections), as the scheduler holds it.
std::shared_ptr<lock_provider> open_fleet_provider(const decider_setup& setup);

/// Deciders sharing one provider: one per thread.
decider_factory provider_deciders(const decider_setup& setup);

/// The raw floor: one libpq or hiredis connection per decider, the provider's statements or
/// scripts with the same parameters.
decider_factory raw_deciders(const decider_setup& setup);
decider_factory raw_postgres_deciders(const decider_setup& setup);
decider_factory raw_redis_deciders(const decider_setup& setup);

/// The owner token of this process (host-independent: pid and a per-decider number).
std::string fleet_owner(const char* side, int decider_number);

}  // namespace shedlock::bench::fleet
