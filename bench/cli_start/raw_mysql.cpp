// The raw MySQL/MariaDB floor: libmariadb, a conditional UPDATE on the server's clock (the row
// exists after the first run; an INSERT IGNORE creates it), an UPDATE to release.
#include "raw_backend.hpp"

#include <mysql.h>

#include <stdexcept>

namespace shedlock::bench {
namespace {

class raw_mysql final : public raw_backend {
public:
    explicit raw_mysql(const std::string& uri) : conn_(mysql_init(nullptr)) {
        const uri_parts u = split_uri(uri, 3306);
        if (!mysql_real_connect(conn_, u.host.c_str(), u.user.c_str(), u.password.c_str(), u.path.c_str(), u.port,
                                nullptr, 0))
            throw std::runtime_error(std::string("mysql: ") + mysql_error(conn_));
    }
    ~raw_mysql() override { mysql_close(conn_); }

    bool acquire(const std::string& name, const std::string& owner, long at_most_ms) override {
        const std::string n = quoted(name), o = quoted(owner), ms = std::to_string(at_most_ms * 1000);
        if (run("UPDATE shedlock SET lock_until = NOW(3) + INTERVAL " + ms + " MICROSECOND, locked_at = NOW(3), "
                "locked_by = " + o + " WHERE name = " + n + " AND lock_until <= NOW(3)") == 1)
            return true;
        return run("INSERT IGNORE INTO shedlock (name, lock_until, locked_at, locked_by) VALUES (" + n +
                   ", NOW(3) + INTERVAL " + ms + " MICROSECOND, NOW(3), " + o + ")") == 1;
    }

    void release(const std::string& name, const std::string& owner) override {
        run("UPDATE shedlock SET lock_until = NOW(3) WHERE name = " + quoted(name) + " AND locked_by = " + quoted(owner));
    }

private:
    std::string quoted(const std::string& text) {
        std::string out(text.size() * 2 + 1, '\0');
        out.resize(mysql_real_escape_string(conn_, out.data(), text.data(), text.size()));
        return "'" + out + "'";
    }

    long run(const std::string& sql) {
        if (mysql_real_query(conn_, sql.data(), sql.size()) != 0)
            throw std::runtime_error(std::string("mysql: ") + mysql_error(conn_));
        return static_cast<long>(mysql_affected_rows(conn_));
    }

    MYSQL* conn_;
};

}  // namespace

std::unique_ptr<raw_backend> open_raw_mysql(const std::string& uri) { return std::make_unique<raw_mysql>(uri); }

}  // namespace shedlock::bench
