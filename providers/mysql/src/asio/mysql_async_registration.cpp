// The MySQL/MariaDB driver of open_async_backend(): the SQL layer's asynchronous lock service
// over non-blocking Connector/C sessions. Claims stay on the pool (no open_claims).
#include "mysql_async_session.hpp"

#include <shedlock/asio/async_session.hpp>
#include <shedlock/error.hpp>
#include <shedlock/providers/mysql_async.hpp>
#include <shedlock/providers/sql/sql_async_lock_service.hpp>

#include <boost/asio/post.hpp>

namespace shedlock::providers {
namespace {

/// The session as the pool sees it; destroying it closes the session.
class mysql_async_connection final : public sql::async_sql_connection {
public:
    explicit mysql_async_connection(std::shared_ptr<detail::mysql_async_session> session)
        : session_(std::move(session)) {}
    ~mysql_async_connection() override { session_->close(); }

    void async_execute(const std::string& sql, std::vector<sql::sql_param> params, bool /*relaxed*/,
                       asio::completion<sql::sql_result> done) override {
        // MySQL has no asynchronous commit per statement: relaxed runs as execute (as blocking).
        session_->execute(sql, std::move(params), std::move(done));
    }
    bool usable() const noexcept override { return session_->usable(); }

private:
    std::shared_ptr<detail::mysql_async_session> session_;
};

void connect(asio::lock_service::executor_type executor, const mysql_options& options,
             asio::completion<std::unique_ptr<sql::async_sql_connection>> done) {
    std::shared_ptr<detail::mysql_async_session> session;
    try {
        session = std::make_shared<detail::mysql_async_session>(executor, options);
    } catch (...) {
        boost::asio::post(executor, [done = std::move(done), failure = std::current_exception()]() mutable {
            done(failure, nullptr);
        });
        return;
    }
    session->connect([session, done = std::move(done)](std::exception_ptr failure) mutable {
        if (failure) {
            session->close();
            return done(failure, nullptr);
        }
        done(nullptr, std::make_unique<mysql_async_connection>(session));
    });
}

std::unique_ptr<asio::lock_service> open_mysql_locks(const provider_uri& uri, backend_session& session,
                                                     asio::lock_service::executor_type executor) {
    // The blocking provider has checked the table and holds the statements the service runs.
    const auto* blocking = dynamic_cast<const sql::sql_lock_provider*>(&session.locks());
    if (!blocking)
        throw configuration_error("mysql: the session's lock provider is not the SQL provider; the non-blocking "
                                  "driver needs it (open the URI with open_async_backend, prefer_pool to avoid it)");
    const auto options = mysql_options::from_uri(uri);
    sql::sql_async_options async;
    async.connections = options.pool_size;
    async.pool_wait = options.pool_wait;
    async.description = "mysql, non-blocking MariaDB Connector/C on Asio (" + std::to_string(options.pool_size) +
                        " connections)";
    return sql::make_sql_async_lock_service(*blocking, mysql_async_connections(options), std::move(executor),
                                            std::move(async));
}

}  // namespace

sql::async_connection_factory mysql_async_connections(const mysql_options& options) {
    return [options](asio::lock_service::executor_type executor,
                     asio::completion<std::unique_ptr<sql::async_sql_connection>> done) {
        connect(std::move(executor), options, std::move(done));
    };
}

void register_mysql_async_driver(asio::async_registry& registry) {
    registry.add(asio::async_registration{"mysql", open_mysql_locks, {}});
}

}  // namespace shedlock::providers
