#pragma once
// The business's own database in the daily-settlement example: a ledger table and the fenced,
// idempotent write that guards it (docs/idempotency.md, "fenced writes in your own tables").

#include <cstdint>
#include <memory>
#include <string>

namespace SQLite {
class Database;
}

namespace settlement {

/// What a ledger write did.
enum class write_result {
    settled,            ///< the settlement row was written
    fence_rejected,     ///< a newer token already settled the day: this writer is stale
    already_in_ledger,  ///< an older writer settled the day (it crashed before completing its claim)
};

const char* to_string(write_result r);

/// A SQLite ledger `ledger(date, instance, token, amount)` plus `settlement_guard(date,
/// last_token, settled)`. Opened by each instance process.
class ledger {
public:
    explicit ledger(const std::string& path);
    ~ledger();
    ledger(const ledger&) = delete;
    ledger& operator=(const ledger&) = delete;

    /// Fenced and idempotent, in one transaction: `UPDATE settlement_guard SET last_token = :t,
    /// settled = 1 WHERE date = :d AND settled = 0 AND last_token < :t`; the ledger row is written
    /// iff that changed a row.
    write_result settle_fenced(const std::string& date, const std::string& instance, std::int64_t token);
    /// What a lock alone gives you: a plain INSERT.
    void settle_plain(const std::string& date, const std::string& instance, std::int64_t token);
    /// Ledger rows of `date`.
    int settlements(const std::string& date);

private:
    std::unique_ptr<SQLite::Database> db_;
};

}  // namespace settlement
