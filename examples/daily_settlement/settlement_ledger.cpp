#include "settlement_ledger.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

namespace settlement {

const char* to_string(write_result r) {
    switch (r) {
        case write_result::settled: return "settled";
        case write_result::fence_rejected: return "fence_rejected";
        case write_result::already_in_ledger: return "already_in_ledger";
    }
    return "?";
}

ledger::ledger(const std::string& path)
    : db_(std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)) {
    db_->setBusyTimeout(10'000);
    db_->exec("PRAGMA journal_mode = WAL");
    db_->exec("CREATE TABLE IF NOT EXISTS ledger (date TEXT NOT NULL, instance TEXT NOT NULL, token INTEGER NOT NULL, "
              "amount INTEGER NOT NULL)");
    db_->exec("CREATE TABLE IF NOT EXISTS settlement_guard (date TEXT PRIMARY KEY, last_token INTEGER NOT NULL, "
              "settled INTEGER NOT NULL)");
}

ledger::~ledger() = default;

write_result ledger::settle_fenced(const std::string& date, const std::string& instance, std::int64_t token) {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement guard(*db_, "INSERT OR IGNORE INTO settlement_guard (date, last_token, settled) VALUES (?, 0, 0)");
    guard.bind(1, date);
    guard.exec();
    SQLite::Statement fence(*db_, "UPDATE settlement_guard SET last_token = ?1, settled = 1 "
                                  "WHERE date = ?2 AND settled = 0 AND last_token < ?1");
    fence.bind(1, static_cast<std::int64_t>(token));
    fence.bind(2, date);
    if (fence.exec() == 1) {
        SQLite::Statement row(*db_, "INSERT INTO ledger (date, instance, token, amount) VALUES (?, ?, ?, 100)");
        row.bind(1, date);
        row.bind(2, instance);
        row.bind(3, static_cast<std::int64_t>(token));
        row.exec();
        tx.commit();
        return write_result::settled;
    }
    SQLite::Statement last(*db_, "SELECT last_token FROM settlement_guard WHERE date = ?");
    last.bind(1, date);
    last.executeStep();
    const auto last_token = last.getColumn(0).getInt64();
    tx.commit();
    return last_token > token ? write_result::fence_rejected : write_result::already_in_ledger;
}

void ledger::settle_plain(const std::string& date, const std::string& instance, std::int64_t token) {
    SQLite::Statement row(*db_, "INSERT INTO ledger (date, instance, token, amount) VALUES (?, ?, ?, 100)");
    row.bind(1, date);
    row.bind(2, instance);
    row.bind(3, static_cast<std::int64_t>(token));
    row.exec();
}

int ledger::settlements(const std::string& date) {
    SQLite::Statement q(*db_, "SELECT COUNT(*) FROM ledger WHERE date = ?");
    q.bind(1, date);
    q.executeStep();
    return q.getColumn(0).getInt();
}

}  // namespace settlement
