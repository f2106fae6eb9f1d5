#pragma once
/// \file
/// Idempotency claims, states and fences in one SQL table, shared by the SQL dialects.

#include <shedlock/idempotency_store.hpp>
#include <shedlock/providers/sql/connection_pool.hpp>
#include <shedlock/providers/sql/sql_dialect.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace shedlock::providers::sql {

struct sql_idempotency_options {
    std::string table = "shedlock_claims";  ///< `[schema.]table`, validated
    bool create_schema_if_missing = false;  ///< create the table at start-up instead of failing
    std::size_t pool_size = 2;
    std::chrono::milliseconds pool_wait = std::chrono::seconds{5};
    /// The backend session's one pool (shared with its locks); nullptr: a pool of its own.
    std::shared_ptr<connection_pool> pool = {};
};

/// The claims table `{kind, name, state, owner, fencing_token, attempt, claimed_at, expires_at,
/// finished_at, result}`, primary key (kind, name): claims are kind 'c', fences kind 'f'.
///
/// Every write is one statement of the dialect (sql::claim_statements). A claim that did not win
/// reads the record afterwards to describe it (a read only; the decision was the upsert's); so
/// does a take-over without RETURNING (MySQL), for its attempt number. A new record needs no read.
/// Times are the store's clock, rounded to ms like the columns.
///
/// Start-up: a missing table is a storage_error(missing_schema) whose message holds the DDL,
/// unless create_schema_if_missing.
///
/// Thread safety: safe for concurrent use; many processes may share one table.
class sql_idempotency_store final : public idempotency_store {
public:
    sql_idempotency_store(std::unique_ptr<sql_dialect> dialect, connection_factory factory,
                          sql_idempotency_options options, const shedlock::clock& clock);

    /// The DDL of this store's table in its dialect, statements separated by ";\n".
    std::string schema_sql() const;

private:
    claim_result do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                          std::optional<std::int64_t> fencing_token, const std::string& owner) override;
    finish_status do_finish(const idempotency_claim& claim, std::string_view state, const std::string& result) override;
    bool do_transition(const std::string& key, const std::string& from, const std::string& to) override;
    bool do_fence(const std::string& resource, std::int64_t token) override;
    std::vector<claim_record> do_list(const std::optional<std::string>& key) override;
    bool do_reset(const std::string& key) override;
    std::size_t do_purge(timestamp cutoff) override;

    void check_schema();
    sql_result run(const std::string& sql, const std::vector<sql_param>& params);

    std::unique_ptr<sql_dialect> dialect_;
    sql_idempotency_options options_;
    table_name table_;
    shared_pool pool_;
    claim_statement_set set_;  ///< the dialect's claim statements and DDL
};

}  // namespace shedlock::providers::sql
