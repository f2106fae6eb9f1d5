#pragma once
/// \file
/// The asynchronous lock service of every SQL backend with a non-blocking client (PostgreSQL,
/// MariaDB): the blocking sql_lock_provider's statements, read the same way (lock_calls.hpp), on
/// a pool of non-blocking connections (async_connection_pool.hpp).

#include <shedlock/asio/lock_service.hpp>
#include <shedlock/providers/sql/async_sql_connection.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace shedlock::providers::sql {

struct sql_async_options {
    std::size_t connections = 4;                           ///< the pool's size (the URI's pool_size)
    std::chrono::milliseconds pool_wait = std::chrono::seconds{5};  ///< the URI's pool_wait
    std::string description;                               ///< lock_service::describe()
};

/// A lock service on the table that `blocking` checked: same statements, same options (fencing,
/// use_db_time, mapped columns), same clock. `blocking` is only read here: the service keeps its
/// own copy of the statements.
std::unique_ptr<asio::lock_service> make_sql_async_lock_service(const sql_lock_provider& blocking,
                                                                async_connection_factory connect,
                                                                boost::asio::any_io_executor executor,
                                                                sql_async_options options);

}  // namespace shedlock::providers::sql
