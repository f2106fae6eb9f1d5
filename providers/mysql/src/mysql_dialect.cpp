#include <shedlock/providers/mysql_lock_provider.hpp>

namespace shedlock::providers {
namespace {

using sql::slot;
using sql::statement;
using sql::statement_options;
using sql::table_name;

// UTC_TIMESTAMP(3) is fixed for the whole statement, so every "now" in one statement agrees.
constexpr const char* server_now = "UTC_TIMESTAMP(3)";
constexpr const char* server_now_plus = "DATE_ADD(UTC_TIMESTAMP(3), INTERVAL ? * 1000 MICROSECOND)";

/// `column = IF(<expired>, value, column)`: expired as judged against the new row's locked_at.
std::string take_over(const sql::quoted_lock_table& q, const std::string& column, const std::string& value) {
    return column + " = IF(" + q.lock_until + " <= VALUES(" + q.locked_at + "), " + value + ", " + column + ")";
}

/// `column = VALUES(column)` under take_over.
std::string take_over_value(const sql::quoted_lock_table& q, const std::string& column) {
    return take_over(q, column, "VALUES(" + column + ")");
}

class mysql_dialect final : public sql::sql_dialect {
public:
    std::string name() const override { return "MySQL/MariaDB"; }
    std::string quote_exact(const std::string& identifier) const override { return "`" + identifier + "`"; }

    // DATETIME(3), not TIMESTAMP: TIMESTAMP ends in 2038 and converts through the session time_zone.
    // name is VARBINARY: every text collation of MySQL/MariaDB folds case or accents, or pads
    // trailing spaces (utf8mb4_bin is PAD SPACE), so "Report-é", "report-É" and "Report-é "
    // would be one lock. 256 bytes hold 64 characters of up to 4 UTF-8 bytes each.
    std::string schema_sql(const sql::lock_table& t) const override {
        return create_lock_table_sql(t, {"VARBINARY(256)", "DATETIME(3)", " DEFAULT CHARSET = utf8mb4"});
    }

    // Assignments see the columns as already updated by earlier ones, so lock_until (which the
    // IF tests) must be assigned LAST; otherwise the owner columns would stay unchanged while the
    // server still reports 2 affected rows. A held row changes nothing: 0 affected rows. A NULL
    // token (a nullable column, a row written by hand) counts as 0.
    statement acquire(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        std::string sql = "INSERT INTO " + q.table + " (" + q.name + ", " + q.lock_until + ", " + q.locked_at + ", " +
                          q.locked_by + (o.fencing ? ", " + q.fencing_token : "") + ") VALUES (?, " +
                          (o.db_time ? server_now_plus : "?") + ", " + (o.db_time ? server_now : "?") + ", ?" +
                          (o.fencing ? ", LAST_INSERT_ID(1)" : "") + ") ON DUPLICATE KEY UPDATE " +
                          take_over_value(q, q.locked_by) + ", " +
                          (o.fencing ? take_over(q, q.fencing_token, "LAST_INSERT_ID(COALESCE(" + q.fencing_token + ", 0) + 1)") + ", "
                                     : "") +
                          take_over_value(q, q.locked_at) + ", " + take_over_value(q, q.lock_until);
        if (o.db_time) return {sql, {slot::name, slot::at_most_ms, slot::owner}};
        return {sql, {slot::name, slot::lock_until, slot::now, slot::owner}};
    }

    sql::acquire_result acquire_reports() const override { return sql::acquire_result::affected_rows; }

    // ER_WARN_DATA_OUT_OF_RANGE, as mysql_errors.cpp writes it: strict mode (MariaDB's default)
    // refuses a token past the column's type. Without strict mode the server stores the
    // maximum again, silently: tokens then repeat (docs/sql-providers.md).
    std::string out_of_range_marker() const override { return "[error 1264]"; }
    std::string widen_to_bigint_sql(const std::string& table, const std::string& column) const override {
        return "ALTER TABLE " + table + " MODIFY " + column + " BIGINT NOT NULL DEFAULT 0";
    }

    statement unlock(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const std::string set = "UPDATE " + q.table + " SET " + q.lock_until + " = ";
        const std::string owned = " WHERE " + q.name + " = ? AND " + q.locked_by + " = ? AND " + q.lock_until + " > ";
        if (o.db_time)
            return {set + released_until(q.lock_until, server_now_plus, o) + owned + server_now,
                    {slot::remaining_minimum_hold_ms, slot::name, slot::owner}};
        return {set + released_until(q.lock_until, "?", o) + owned + "?",
                {slot::minimum_hold_until, slot::name, slot::owner, slot::now}};
    }

    // Judged by rows MATCHED (the connection reports them for UPDATE): an extension that happens
    // to write the same lock_until changes 0 rows but still succeeded.
    statement extend(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const std::string set = "UPDATE " + q.table + " SET " + q.lock_until + " = ";
        const std::string owned = " WHERE " + q.name + " = ? AND " + q.locked_by + " = ? AND " + q.lock_until + " > ";
        if (o.db_time) return {set + server_now_plus + owned + server_now, {slot::at_most_ms, slot::name, slot::owner}};
        return {set + "?" + owned + "?", {slot::lock_until, slot::name, slot::owner, slot::now}};
    }

    sql::placeholder_style placeholders() const override { return sql::placeholder_style::question; }

    std::optional<sql::run_statement_set> run_set(const table_name& t) const override {
        return sql::run_statement_set(run_texts(t), run_schema(t), placeholders());
    }

    std::optional<sql::claim_statement_set> claim_set(const table_name& t) const override {
        return sql::claim_statement_set(claim_texts(t), claims_schema(t), placeholders());
    }

    std::string server_now_sql() const override { return std::string("SELECT ") + server_now; }

    // information_schema lists user columns. Unique alone: a unique index (the primary key
    // included) of this one column, in full (a prefix index would make two names one row).
    // Every information_schema read names the schema and table as constants: correlated
    // conditions made MariaDB open every table's statistics (20 ms instead of 0.7 ms).
    // information_schema compares names without case; where table names are case-sensitive
    // (lower_case_table_names = 0) the table name must also match byte for byte.
    sql::catalog_query describe_lock_table(const sql::lock_table& t) const override {
        sql::catalog_query query;
        const auto& schema = t.table().schema();
        const auto in_table = [&](const std::string& alias) {
            if (schema) query.params.push_back(*schema);
            query.params.push_back(t.table().table());
            return alias + ".table_schema = " + (schema ? "?" : "DATABASE()") + " AND " + alias + ".table_name = ?";
        };
        // One statement each: the operands of + are unsequenced, and the parameters follow the text.
        const std::string in_s = in_table("s");
        const std::string in_o = in_table("o");
        const std::string in_c = in_table("c");
        query.sql = "SELECT c.column_name, c.column_type, CASE WHEN c.column_name IN (SELECT s.column_name FROM "
                    "information_schema.statistics s WHERE " + in_s +
                    " AND s.non_unique = 0 AND s.sub_part IS NULL AND s.index_name IN (SELECT o.index_name FROM "
                    "information_schema.statistics o WHERE " + in_o +
                    " GROUP BY o.index_name HAVING COUNT(*) = 1)) THEN 1 ELSE 0 END FROM information_schema.columns c "
                    "WHERE " + in_c +
                    " AND (@@lower_case_table_names <> 0 OR BINARY c.table_name = BINARY ?) ORDER BY c.ordinal_position";
        query.params.push_back(t.table().table());
        return query;
    }

    sql::column_kinds kinds_of(const std::string& type) const override {
        const auto starts = [&](std::initializer_list<const char*> prefixes) {
            for (const char* p : prefixes)
                if (type.rfind(p, 0) == 0) return true;
            return false;
        };
        return {starts({"char", "varchar", "binary", "varbinary", "tinytext", "text", "mediumtext", "longtext"}),
                starts({"datetime", "timestamp"}),
                starts({"tinyint", "smallint", "mediumint", "int", "bigint"})};
    }

    // One statement (the index inside CREATE TABLE: MySQL has no CREATE INDEX IF NOT EXISTS).
    // task is VARBINARY like the lock name: every text collation folds case or accents or pads
    // trailing spaces (utf8mb4_bin is PAD SPACE: 'a' and 'a ' were one task), and tasks() sorts
    // bytewise. 1020 bytes hold 255 four-byte characters. TEXT columns have no DEFAULT (MySQL
    // before 8.0.13 refuses one) and are always written.
    std::vector<std::string> run_schema(const table_name& t) const {
        return {"CREATE TABLE IF NOT EXISTS " + sql_name(t) +
                " (\n  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
                "  task VARBINARY(1020) NOT NULL,\n"
                "  lock_name VARBINARY(256) NOT NULL,\n  instance VARCHAR(255) NOT NULL,\n"
                "  scheduled_at DATETIME(3) NOT NULL,\n  started_at DATETIME(3) NOT NULL,\n"
                "  finished_at DATETIME(3) NOT NULL,\n  outcome VARCHAR(16) NOT NULL,\n  fencing_token BIGINT NULL,\n"
                "  message TEXT NOT NULL,\n  counters TEXT NOT NULL,\n  lock_lost TINYINT NOT NULL DEFAULT 0,\n"
                "  INDEX " + quote(t.table() + "_task_id") + " (task, id)\n) DEFAULT CHARSET = utf8mb4"};
    }

    // MySQL refuses a DELETE whose subquery reads the same table (error 1093), so the count
    // prune joins a derived table; its LIMIT keeps it from being merged back into the DELETE.
    sql::run_statements run_texts(const table_name& t) const {
        const std::string tb = sql_name(t);
        const std::string columns = sql::run_record_columns;
        return {"INSERT INTO " + tb + " (" + columns +
                    ") VALUES (?, ?, ?, ?, ?, ?, ?, CAST(NULLIF(?, '') AS SIGNED), ?, ?, ?)",
                "SELECT " + columns + " FROM " + tb + " WHERE task = ? ORDER BY id DESC LIMIT ?",
                "SELECT DISTINCT task FROM " + tb + " ORDER BY task",
                "DELETE r FROM " + tb + " AS r JOIN (SELECT task, id FROM " + tb +
                    " WHERE task = ? ORDER BY id DESC LIMIT 1 OFFSET ?) AS cutoff ON r.task = cutoff.task AND r.id <= cutoff.id",
                "DELETE FROM " + tb + " WHERE finished_at < ?",
                "SELECT " + columns + " FROM " + tb + " WHERE 1 = 0",
                "SELECT " + columns + " FROM " + tb + " WHERE task = ? AND instance = BINARY ? ORDER BY id DESC LIMIT ?"};
    }
    // Claims: kind 'c', fences: kind 'f' (one table). name, state and owner are VARBINARY like
    // the lock name: every text collation folds case or accents or pads trailing spaces.
    std::vector<std::string> claims_schema(const table_name& t) const {
        return {"CREATE TABLE IF NOT EXISTS " + sql_name(t) +
                " (\n  kind VARBINARY(1) NOT NULL,\n  name VARBINARY(1020) NOT NULL,\n  state VARBINARY(128) NOT NULL,\n"
                "  owner VARBINARY(255) NOT NULL,\n  fencing_token BIGINT NULL,\n  attempt BIGINT NOT NULL,\n"
                "  claimed_at DATETIME(3) NOT NULL,\n  expires_at DATETIME(3) NOT NULL,\n  finished_at DATETIME(3) NULL,\n"
                "  result MEDIUMTEXT NOT NULL,\n  PRIMARY KEY (kind, name)\n) DEFAULT CHARSET = utf8mb4"};
    }

    // ON DUPLICATE KEY UPDATE assigns left to right and later assignments see earlier ones: the
    // claim decides once, in `owner` (first), and every later column asks "is owner now ours?"
    // (owner tokens are unique per claim); state and expires_at, which the decision reads, are
    // only written after it. Affected rows: 1 new, 2 taken over, 0 refused (no CLIENT_FOUND_ROWS).
    sql::claim_statements claim_texts(const table_name& t) const {
        const std::string tb = sql_name(t);
        const std::string columns =
            "kind, name, state, owner, fencing_token, attempt, claimed_at, expires_at, finished_at, result";
        const std::string ours = "owner = VALUES(owner)";
        sql::claim_statements out;
        out.claim = "INSERT INTO " + tb + " (" + columns +
                    ") VALUES ('c', ?, 'running', ?, CAST(NULLIF(?, '') AS SIGNED), 1, ?, ?, NULL, '') "
                    "ON DUPLICATE KEY UPDATE owner = IF(state = 'failed' OR (state = 'running' AND expires_at <= "
                    "VALUES(claimed_at)), VALUES(owner), owner), result = IF(" + ours +
                    ", IF(state = 'failed', result, ''), result), attempt = IF(" + ours +
                    ", attempt + 1, attempt), fencing_token = IF(" + ours +
                    ", VALUES(fencing_token), fencing_token), claimed_at = IF(" + ours +
                    ", VALUES(claimed_at), claimed_at), expires_at = IF(" + ours +
                    ", VALUES(expires_at), expires_at), finished_at = IF(" + ours +
                    ", NULL, finished_at), state = IF(" + ours + ", 'running', state)";
        out.finish = "UPDATE " + tb + " SET state = ?, finished_at = ?, result = ? WHERE kind = 'c' AND name = ? "
                     "AND owner = ? AND state = 'running'";
        out.create = "INSERT IGNORE INTO " + tb + " (" + columns + ") VALUES ('c', ?, ?, '', NULL, 0, ?, ?, NULL, '')";
        out.transition = "UPDATE " + tb + " SET state = ? WHERE kind = 'c' AND name = ? AND state = ?";
        out.fence = "INSERT INTO " + tb + " (" + columns +
                    ") VALUES ('f', ?, 'fence', '', ?, 0, ?, ?, NULL, '') ON DUPLICATE KEY UPDATE "
                    "claimed_at = IF(fencing_token < VALUES(fencing_token), VALUES(claimed_at), claimed_at), "
                    "fencing_token = IF(fencing_token < VALUES(fencing_token), VALUES(fencing_token), fencing_token)";
        const std::string select = std::string("SELECT ") + sql::claim_record_columns + " FROM " + tb + " WHERE kind = 'c'";
        out.list = select + " ORDER BY name";
        out.find = select + " AND name = ?";
        out.reset = "DELETE FROM " + tb + " WHERE kind = 'c' AND name = ?";
        out.purge = "DELETE FROM " + tb +
                    " WHERE kind = 'c' AND state <> 'running' AND COALESCE(finished_at, claimed_at) < ?";
        out.probe = std::string("SELECT kind, ") + sql::claim_record_columns + " FROM " + tb + " WHERE 1 = 0";
        return out;
    }
};

}  // namespace

std::unique_ptr<sql::sql_dialect> make_mysql_dialect() { return std::make_unique<mysql_dialect>(); }

}  // namespace shedlock::providers
