#pragma once
// Test-only: an SQL dialect with a bug planted in it, so the chaos suite can show that it
// catches that kind of bug (docs/chaos.md, "Planted bugs"). Never used outside tests/chaos.

#include <shedlock/providers/sql/sql_dialect.hpp>

#include <memory>
#include <string>

namespace shedlock::chaos {

enum class planted_bug {
    none,                    ///< the real statements (the control run)
    unlock_no_owner,         ///< unlock releases the lock whoever holds it
    extend_no_owner,         ///< extend prolongs the lock whoever holds it
    tokens_not_incremented,  ///< a take-over keeps the old fencing token
    skewed_db_time,          ///< with use_db_time, acquire still compares and writes client time
};

/// Throws std::invalid_argument for an unknown name.
planted_bug parse_planted_bug(const std::string& name);

/// The real dialect's statements, with `bug` planted by rewriting the statement text:
/// - owner checks "locked_by = <param>" become "(locked_by = <param> OR 1 = 1)" (the parameter
///   stays, so the placeholders and bound values still line up);
/// - "fencing_token + 1" becomes "fencing_token + 0" (the column as the dialect quotes it);
/// - skewed_db_time builds the acquire statement of client-time mode, so the provider binds its
///   own clock's now and now + lock_at_most_for.
class planted_dialect final : public providers::sql::sql_dialect {
public:
    planted_dialect(std::unique_ptr<providers::sql::sql_dialect> real, planted_bug bug);

    std::string name() const override { return real_->name(); }
    std::string quote(const std::string& identifier) const override { return real_->quote(identifier); }
    std::string quote_exact(const std::string& identifier) const override { return real_->quote_exact(identifier); }
    std::string schema_sql(const providers::sql::lock_table& t) const override { return real_->schema_sql(t); }
    providers::sql::statement acquire(const providers::sql::lock_table& t,
                                      const providers::sql::statement_options& o) const override;
    providers::sql::acquire_result acquire_reports() const override { return real_->acquire_reports(); }
    providers::sql::statement unlock(const providers::sql::lock_table& t,
                                     const providers::sql::statement_options& o) const override;
    providers::sql::statement extend(const providers::sql::lock_table& t,
                                     const providers::sql::statement_options& o) const override;
    providers::sql::statement list(const providers::sql::lock_table& t,
                                   const providers::sql::statement_options& o) const override {
        return real_->list(t, o);
    }
    providers::sql::catalog_query describe_lock_table(const providers::sql::lock_table& t) const override {
        return real_->describe_lock_table(t);
    }
    providers::sql::column_kinds kinds_of(const std::string& type) const override { return real_->kinds_of(type); }
    bool column_names_ignore_case() const override { return real_->column_names_ignore_case(); }
    providers::sql::statement delete_record(const providers::sql::lock_table& t) const override {
        return real_->delete_record(t);
    }
    providers::sql::statement delete_expired_record(const providers::sql::lock_table& t) const override {
        return real_->delete_expired_record(t);
    }
    std::string server_now_sql() const override { return real_->server_now_sql(); }
    providers::sql::placeholder_style placeholders() const override { return real_->placeholders(); }

private:
    std::unique_ptr<providers::sql::sql_dialect> real_;
    planted_bug bug_;
};

}  // namespace shedlock::chaos
