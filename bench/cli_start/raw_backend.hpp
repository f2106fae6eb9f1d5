#pragma once
// The raw floor of bench_cli_start: what a user would write by hand against each client library
// (no shedlock code): connect, take the lock with one conditional statement, release it.

#include <memory>
#include <string>

namespace shedlock::bench {

class raw_backend {
public:
    virtual ~raw_backend() = default;
    /// True when the lock was free and is now held by `owner` for `at_most_ms`.
    virtual bool acquire(const std::string& name, const std::string& owner, long at_most_ms) = 0;
    virtual void release(const std::string& name, const std::string& owner) = 0;
};

/// The backend for `uri` (sqlite:PATH, postgresql://..., mysql://..., redis://...); throws
/// std::runtime_error for a scheme this build has no client library for.
std::unique_ptr<raw_backend> open_raw_backend(const std::string& uri);

std::unique_ptr<raw_backend> open_raw_sqlite(const std::string& path);
std::unique_ptr<raw_backend> open_raw_postgres(const std::string& uri);
std::unique_ptr<raw_backend> open_raw_mysql(const std::string& uri);
std::unique_ptr<raw_backend> open_raw_redis(const std::string& uri);

/// user, password, host, port, path of scheme://user:password@host:port/path (no decoding: the
/// bench's URIs carry plain characters).
struct uri_parts {
    std::string user, password, host, path;
    unsigned port = 0;
};
uri_parts split_uri(const std::string& uri, unsigned default_port);

}  // namespace shedlock::bench
