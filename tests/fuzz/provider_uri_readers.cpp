// The providers are optional components: CMake defines SHEDLOCK_FUZZ_WITH_<NAME> for each one
// this tree builds, and only here does the fuzz code depend on which.
#include "provider_uri_readers.hpp"

#include <shedlock/error.hpp>

#ifdef SHEDLOCK_FUZZ_WITH_SQLITE
#include <shedlock/providers/sqlite_run_store.hpp>
#endif
#ifdef SHEDLOCK_FUZZ_WITH_POSTGRES
#include <shedlock/providers/postgres_run_store.hpp>
#endif
#ifdef SHEDLOCK_FUZZ_WITH_MYSQL
#include <shedlock/providers/mysql_run_store.hpp>
#endif
#ifdef SHEDLOCK_FUZZ_WITH_REDIS
#include <shedlock/providers/redis_run_store.hpp>
#endif

namespace shedlock::fuzz {
namespace {

/// Each accessor on every key the URI has: one uri_options per accessor, as a provider reads
/// each key once; every key is read, so finish() must accept. Only the errors are shown.
std::vector<std::string> read_generic(const provider_uri& uri) {
    std::vector<std::string> seen;
    const auto each_key = [&](auto read) {
        uri_options options(uri);
        for (const auto& entry : uri.query) {
            try {
                read(options, entry.first);
            } catch (const configuration_error& e) {
                seen.emplace_back(e.what());
            }
        }
        options.finish();
    };
    each_key([](uri_options& o, const std::string& key) { (void)o.text(key); });
    each_key([](uri_options& o, const std::string& key) { (void)o.flag(key); });
    each_key([](uri_options& o, const std::string& key) { (void)o.duration(key); });
    each_key([](uri_options& o, const std::string& key) { (void)o.integer(key, -1, 1'000'000); });
    return seen;
}

/// What a provider shows of the options it read (in connection errors and logs): the redacted
/// server URI of the SQL servers, the path of SQLite, Redis' host, user, prefix and env.
#ifdef SHEDLOCK_FUZZ_WITH_SQLITE
std::string shown(const providers::sqlite_run_options& o) { return o.path; }
#endif
#ifdef SHEDLOCK_FUZZ_WITH_POSTGRES
std::string shown(const providers::postgres_run_options& o) { return o.server.redacted_uri(); }
#endif
#ifdef SHEDLOCK_FUZZ_WITH_MYSQL
std::string shown(const providers::mysql_run_options& o) { return o.server.redacted_uri(); }
#endif
#ifdef SHEDLOCK_FUZZ_WITH_REDIS
std::string shown(const providers::redis_run_options& o) {
    return o.server.host + " " + o.server.user + " " + o.server.prefix + " " + o.server.env;
}
#endif

/// A provider's run-store options, which read the lock options first (the lock options'
/// from_uri runs inside) and then the run-store keys: one call covers both.
template <typename RunOptions>
std::vector<std::string> read_provider(const provider_uri& uri) {
    try {
        return {shown(RunOptions::from_uri(uri))};
    } catch (const configuration_error& e) {
        return {e.what()};
    }
}

}  // namespace

const std::vector<provider_uri_reader>& provider_uri_readers() {
    static const std::vector<provider_uri_reader> readers{
        {"uri_options", {}, read_generic},
#ifdef SHEDLOCK_FUZZ_WITH_SQLITE
        {"sqlite", {"sqlite"}, read_provider<providers::sqlite_run_options>},
#endif
#ifdef SHEDLOCK_FUZZ_WITH_POSTGRES
        {"postgres", {"postgresql", "postgres"}, read_provider<providers::postgres_run_options>},
#endif
#ifdef SHEDLOCK_FUZZ_WITH_MYSQL
        {"mysql", {"mysql", "mariadb"}, read_provider<providers::mysql_run_options>},
#endif
#ifdef SHEDLOCK_FUZZ_WITH_REDIS
        {"redis", {"redis"}, read_provider<providers::redis_run_options>},
#endif
    };
    return readers;
}

}  // namespace shedlock::fuzz
