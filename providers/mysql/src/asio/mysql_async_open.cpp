// Opening a non-blocking connection: resolve the host name without blocking, then one session
// per address until one connects, all within connect_timeout.
#include "mysql_async_open.hpp"

#include "mysql_async_session.hpp"

#include <shedlock/error.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace shedlock::providers::detail {
namespace {

using done_type = asio::completion<std::unique_ptr<sql::async_sql_connection>>;

/// The session as the pool sees it; destroying it closes the session.
class mysql_async_connection final : public sql::async_sql_connection {
public:
    explicit mysql_async_connection(std::shared_ptr<mysql_async_session> session) : session_(std::move(session)) {}
    ~mysql_async_connection() override { session_->close(); }

    void async_execute(const std::string& sql, std::vector<sql::sql_param> params, bool /*relaxed*/,
                       asio::completion<sql::sql_result> done) override {
        // MySQL has no asynchronous commit per statement: relaxed runs as execute (as blocking).
        session_->execute(sql, std::move(params), std::move(done));
    }
    bool usable() const noexcept override { return session_->usable(); }

private:
    std::shared_ptr<mysql_async_session> session_;
};

/// A name the connector would resolve itself (see open_mysql_async).
bool needs_resolving(const mysql_options& options) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(options.host, ec);
    return ec && !options.host.empty() && options.host != "localhost" && options.host.front() != '/' &&
           options.tls.mode != "VERIFY_IDENTITY";
}

/// The time to connect within: connect_timeout, but never 0 (the URI accepts connect_timeout=0,
/// which the blocking connection gives the connector as its least, 1 s; taken as is, every
/// connection would fail at once).
std::chrono::milliseconds connect_limit(const mysql_options& options) {
    return options.connect_timeout.count() > 0 ? options.connect_timeout : std::chrono::seconds{1};
}

bool unreachable(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const storage_error& e) {
        return e.category() == storage_category::unavailable;
    } catch (...) {
        return false;
    }
}

class opening : public std::enable_shared_from_this<opening> {
public:
    opening(asio::lock_service::executor_type executor, const mysql_options& options, done_type done)
        : executor_(executor), options_(options), done_(std::move(done)), resolver_(executor), timer_(executor),
          until_(std::chrono::steady_clock::now() + connect_limit(options)) {}

    /// Runs on the executor.
    void start() {
        if (!needs_resolving(options_)) {
            addresses_.push_back(options_.host);
            return try_next();
        }
        timer_.expires_at(until_);
        timer_.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
            if (!e) self->resolver_.cancel();  // its answer then comes as operation_aborted
        });
        resolver_.async_resolve(options_.host, std::to_string(options_.port),
                                [self = shared_from_this()](const boost::system::error_code& ec,
                                                            boost::asio::ip::tcp::resolver::results_type found) {
                                    self->timer_.cancel();
                                    self->resolved(ec, found);
                                });
    }

private:
    void resolved(const boost::system::error_code& ec, const boost::asio::ip::tcp::resolver::results_type& found) {
        for (const auto& entry : found) {
            const auto address = entry.endpoint().address().to_string();
            if (addresses_.size() < 8 && std::find(addresses_.begin(), addresses_.end(), address) == addresses_.end())
                addresses_.push_back(address);
        }
        if (!addresses_.empty()) return try_next();
        std::string why = ec ? ec.message() : std::string("no address");
        if (ec == boost::asio::error::operation_aborted)
            why = "no answer within connect_timeout=" + std::to_string(options_.connect_timeout.count()) + "ms";
        finish(std::make_exception_ptr(storage_error(
                   storage_category::unavailable, retry_advice::safe,
                   "MySQL/MariaDB " + options_.redacted_uri() + ": cannot resolve host \"" + options_.host +
                       "\" (" + why + "); check the host name and the resolver (/etc/resolv.conf)")),
               nullptr);
    }

    void try_next() {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(until_ - std::chrono::steady_clock::now());
        if (next_ == addresses_.size() || (next_ > 0 && left.count() <= 0)) return finish(last_failure_, nullptr);
        std::shared_ptr<mysql_async_session> session;
        try {
            session = std::make_shared<mysql_async_session>(executor_, options_);
        } catch (...) {
            return finish(std::current_exception(), nullptr);
        }
        const auto within = std::max(left, std::chrono::milliseconds{1});
        session->connect(addresses_[next_++], within, [self = shared_from_this(), session](std::exception_ptr e) {
            if (!e) return self->finish(nullptr, std::make_unique<mysql_async_connection>(session));
            session->close();
            self->last_failure_ = e;
            // Another address may answer where this one is unreachable; a refusal (access, TLS,
            // schema) would be the same there.
            if (!unreachable(e)) self->next_ = self->addresses_.size();
            self->try_next();
        });
    }

    void finish(std::exception_ptr failure, std::unique_ptr<sql::async_sql_connection> connection) {
        auto done = std::move(done_);
        done(failure, std::move(connection));
    }

    asio::lock_service::executor_type executor_;
    mysql_options options_;
    done_type done_;
    boost::asio::ip::tcp::resolver resolver_;
    boost::asio::steady_timer timer_;
    std::chrono::steady_clock::time_point until_;
    std::vector<std::string> addresses_;
    std::size_t next_ = 0;
    std::exception_ptr last_failure_;
};

}  // namespace

void open_mysql_async(asio::lock_service::executor_type executor, const mysql_options& options, done_type done) {
    // Posted: the completion must never run inside the factory's call.
    auto run = std::make_shared<opening>(executor, options, std::move(done));
    boost::asio::post(executor, [run] { run->start(); });
}

}  // namespace shedlock::providers::detail
