#pragma once
// The run-store conformance suite: one set of Catch2 test cases that every run store's test
// program links (whole archive) and must pass, so retention and ordering mean the same on every
// backend. A program defines shedlock::conformance::make_run_store_backend().

#include <shedlock/run_store.hpp>

#include <memory>
#include <string>

namespace shedlock::conformance {

/// One run-store backend under test.
class run_store_backend {
public:
    virtual ~run_store_backend() = default;
    virtual std::string name() const = 0;
    /// A new, empty store of its own (table, file or key prefix) with `retention`, pruning on
    /// every append and able to serve 4 threads at once. Whatever it created on the server is
    /// removed when the backend is destroyed.
    virtual std::unique_ptr<run_store> make_store(const run_retention& retention) = 0;
};

/// Defined by each run store's test program.
std::unique_ptr<run_store_backend> make_run_store_backend();

}  // namespace shedlock::conformance
