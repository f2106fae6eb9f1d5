#include "run_store_factory.hpp"

#include <shedlock/error.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/providers/sqlite_run_store.hpp>

namespace shedlock::cli {
namespace {

std::unique_ptr<run_store> open_sqlite(const provider_uri& uri, const run_store_request& request) {
    const auto locks = providers::sqlite_options::from_uri(uri);  // same file, same checks
    providers::sqlite_run_options options;
    options.path = locks.path;
    options.busy_timeout = locks.busy_timeout;
    options.durability = locks.durability;
    options.create_schema_if_missing = request.create_schema || locks.create_schema_if_missing;
    options.retention = request.retention;
    return providers::make_sqlite_run_store(options);
}

}  // namespace

std::unique_ptr<run_store> open_run_store(const std::string& text, const run_store_request& request) {
    const provider_uri uri = parse_provider_uri(text);
    if (uri.scheme == "memory") return std::make_unique<memory_run_store>(request.retention);
    if (uri.scheme == "sqlite") return open_sqlite(uri, request);
    throw configuration_error("run records for \"" + uri.redacted() + "\": this build keeps run records for memory: "
                              "and sqlite: backends only; use an sqlite: provider for the daemon's records");
}

}  // namespace shedlock::cli
