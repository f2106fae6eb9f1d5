#pragma once
// The native asynchronous service of an SQL server backend (PostgreSQL, MariaDB) for the
// conformance suite: the SQL layer's service on the driver's non-blocking connections, with the
// statements and options of the mode's blocking provider (which checked or created the table).

#include "native_service.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_async_lock_service.hpp>

#include <memory>
#include <string>
#include <utility>

namespace shedlock::conformance {

/// A factory for with_native_service: `connect` opens the driver's connections (e.g.
/// postgres_async_connections(options of the test server)).
inline native_service_factory sql_native_service(std::string description,
                                                 providers::sql::async_connection_factory connect) {
    return [description = std::move(description), connect = std::move(connect)](
               backend& inner, const shedlock::clock& clock, asio::lock_service::executor_type executor) {
        const auto blocking = inner.make_provider(clock);
        const auto* sql = dynamic_cast<const providers::sql::sql_lock_provider*>(blocking.get());
        if (!sql) throw configuration_error(inner.name() + ": the backend's provider is not an SQL lock provider");
        providers::sql::sql_async_options options;
        options.connections = 8;  // as the blocking providers' pool_size (conformance_backend.hpp)
        options.description = description;
        return providers::sql::make_sql_async_lock_service(*sql, connect, std::move(executor), options);
    };
}

}  // namespace shedlock::conformance
