#include "run_store_factory.hpp"

#include "provider_factory.hpp"

namespace shedlock::cli {

std::unique_ptr<run_store> open_run_store(const std::string& uri, const run_store_request& request) {
    return shedlock::open_run_store(uri, {.create_schema = request.create_schema, .retention = request.retention}, registry());
}

}  // namespace shedlock::cli
