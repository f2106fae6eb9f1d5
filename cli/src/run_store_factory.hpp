#pragma once
// Where run records of a backend live: the same database or Redis as the locks.

#include <shedlock/run_store.hpp>

#include <memory>
#include <string>

namespace shedlock::cli {

struct run_store_request {
    bool create_schema = false;  ///< create the run-record table when missing (daemon)
    run_retention retention;
};

/// Opens the run store that belongs to the lock backend `uri`: the `shedlock_runs` table of an
/// SQL database, Redis streams, or (memory:) an in-process ring. Throws configuration_error for a
/// backend without a run store in this build, storage_error when it cannot be opened.
std::unique_ptr<run_store> open_run_store(const std::string& uri, const run_store_request& request);

}  // namespace shedlock::cli
