#include <shedlock/providers/sql/upsert_claim_statements.hpp>
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <cctype>

namespace shedlock::providers {
namespace {

using sql::slot;
using sql::statement;
using sql::statement_options;
using sql::table_name;

constexpr const char* server_now = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

/// SQLite's clock plus a bound number of milliseconds, exact (no floating point).
std::string server_now_plus(int param) {
    std::string p = "?";  // built piecewise: "literal" + std::to_string() trips GCC 12's -Wrestrict at -O3
    p += std::to_string(param);
    return "strftime('%Y-%m-%d %H:%M:%f', 'now', printf('%+d.%03d seconds', " + p + " / 1000, " + p + " % 1000))";
}

class sqlite_dialect final : public sql::sql_dialect {
public:
    std::string name() const override { return "sqlite"; }

    std::string schema_sql(const sql::lock_table& t) const override {
        return create_lock_table_sql(t, {"VARCHAR(64)", "TEXT", ""});
    }

    statement acquire(const sql::lock_table& t, const statement_options& o) const override {
        // A live row makes the DO UPDATE's WHERE false: nothing is written, no row returned.
        const auto q = quoted(t);
        const std::string until = o.db_time ? server_now_plus(2) : "?2";
        const std::string now = o.db_time ? server_now : "?3";
        const std::string token = o.fencing ? ", " + q.fencing_token : "";
        const std::string owner = o.db_time ? "?3" : "?4";  // db time binds no client "now"
        std::string sql = "INSERT INTO " + q.table + " (" + q.name + ", " + q.lock_until + ", " + q.locked_at + ", " +
                          q.locked_by + token + ") VALUES (?1, " + until + ", " + now + ", " + owner +
                          (o.fencing ? ", 1" : "") + ") ON CONFLICT (" + q.name + ") DO UPDATE SET " + q.lock_until +
                          " = excluded." + q.lock_until + ", " + q.locked_at + " = excluded." + q.locked_at + ", " +
                          q.locked_by + " = excluded." + q.locked_by +
                          (o.fencing ? ", " + q.fencing_token + " = " + q.table_only + "." + q.fencing_token + " + 1" : "") +
                          " WHERE " + q.table_only + "." + q.lock_until + " <= excluded." + q.locked_at + " RETURNING " +
                          q.locked_at + ", " + q.lock_until + token;
        if (o.db_time) return {sql, {slot::name, slot::at_most_ms, slot::owner}};
        return {sql, {slot::name, slot::lock_until, slot::now, slot::owner}};
    }

    statement unlock(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const std::string set = "UPDATE " + q.table + " SET " + q.lock_until + " = ";
        const std::string owned = " WHERE " + q.name + " = ?2 AND " + q.locked_by + " = ?3 AND " + q.lock_until + " > ";
        if (o.db_time)
            return {set + released_until(q.lock_until, server_now_plus(1), o) + owned + server_now,
                    {slot::remaining_minimum_hold_ms, slot::name, slot::owner}};
        return {set + released_until(q.lock_until, "?1", o) + owned + "?4",
                {slot::minimum_hold_until, slot::name, slot::owner, slot::now}};
    }

    statement extend(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const std::string set = "UPDATE " + q.table + " SET " + q.lock_until + " = ";
        const std::string owned = " WHERE " + q.name + " = ?2 AND " + q.locked_by + " = ?3 AND " + q.lock_until + " > ";
        const std::string returning = " RETURNING " + q.lock_until;
        if (o.db_time)
            return {set + server_now_plus(1) + owned + server_now + returning,
                    {slot::at_most_ms, slot::name, slot::owner}};
        return {set + "?1" + owned + "?4" + returning, {slot::lock_until, slot::name, slot::owner, slot::now}};
    }

    sql::placeholder_style placeholders() const override { return sql::placeholder_style::question; }

    std::optional<sql::run_statement_set> run_set(const table_name& t) const override {
        return sql::run_statement_set(run_texts(t), run_schema(t), placeholders());
    }

    std::optional<sql::claim_statement_set> claim_set(const table_name& t) const override {
        return sql::claim_statement_set(claim_texts(t), claims_schema(t), placeholders());
    }

    std::string server_now_sql() const override { return std::string("SELECT ") + server_now; }

    // table_info lists declared columns only (rowid is not one unless declared). Unique alone:
    // the primary key on this column only, or a unique index, not partial, whose one key column
    // it is: what ON CONFLICT (name) needs.
    sql::catalog_query describe_lock_table(const sql::lock_table& t) const override {
        const auto& schema = t.table().schema();
        const std::string in = schema ? "?1, ?2" : "?1";
        sql::catalog_query query{
            "SELECT c.name, c.type, CASE WHEN (c.pk = 1 AND (SELECT COUNT(*) FROM pragma_table_info(" + in +
                ") WHERE pk > 0) = 1) OR EXISTS (SELECT 1 FROM pragma_index_list(" + in + ") l WHERE l.\"unique\" = 1 "
                "AND l.partial = 0 AND (SELECT COUNT(*) FROM pragma_index_info(l.name" + (schema ? ", ?2" : "") +
                ")) = 1 AND (SELECT i.name FROM pragma_index_info(l.name" + (schema ? ", ?2" : "") +
                ") i) = c.name COLLATE NOCASE) THEN 1 ELSE 0 END FROM pragma_table_info(" + in + ") c ORDER BY c.cid",
            {t.table().table()}};
        if (schema) query.params.push_back(*schema);
        return query;
    }

    // SQLite's declared types: text as its TEXT affinity (CHAR, CLOB or TEXT in the type), an
    // integer as its INTEGER affinity (INT in the type). Times are text in one format, in a
    // column declared with DATE or TIME in its type (ShedLock's TIMESTAMP(3), DATETIME) or
    // declared TEXT (what schema apply creates); not VARCHAR, which is a name's or a holder's.
    sql::column_kinds kinds_of(const std::string& declared) const override {
        std::string type = declared;
        for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const auto has = [&](const char* part) { return type.find(part) != std::string::npos; };
        const bool integer = has("INT");
        return {!integer && (has("CHAR") || has("CLOB") || has("TEXT")), !integer && (has("DATE") || has("TIME") || type == "TEXT"),
                integer};
    }

    // SQLite's LEAST is the two-argument scalar MIN; both sides are timestamp text of one format,
    // which orders as the times do.
    std::string least(const std::string& a, const std::string& b) const override {
        return "MIN(" + a + ", " + b + ")";
    }

    std::vector<std::string> run_schema(const table_name& t) const {
        return {"CREATE TABLE IF NOT EXISTS " + sql_name(t) +
                    " (\n  id INTEGER PRIMARY KEY AUTOINCREMENT,\n  task VARCHAR(255) NOT NULL,\n"
                    "  lock_name VARCHAR(64) NOT NULL,\n  instance VARCHAR(255) NOT NULL,\n"
                    "  scheduled_at TEXT NOT NULL,\n  started_at TEXT NOT NULL,\n  finished_at TEXT NOT NULL,\n"
                    "  outcome VARCHAR(16) NOT NULL,\n  fencing_token BIGINT,\n  message TEXT NOT NULL DEFAULT '',\n"
                    "  counters TEXT NOT NULL DEFAULT '',\n  lock_lost INTEGER NOT NULL DEFAULT 0\n)",
                "CREATE INDEX IF NOT EXISTS " + (t.schema() ? quote(*t.schema()) + "." : std::string()) +
                    quote(t.table() + "_task_id") + " ON " + quote(t.table()) + " (task, id)"};
    }

    sql::run_statements run_texts(const table_name& t) const {
        const std::string tb = sql_name(t);
        const std::string columns = sql::run_record_columns;
        return {"INSERT INTO " + tb + " (" + columns +
                    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, CAST(NULLIF(?8, '') AS INTEGER), ?9, ?10, ?11)",
                "SELECT " + columns + " FROM " + tb + " WHERE task = ?1 ORDER BY id DESC LIMIT ?2",
                "SELECT DISTINCT task FROM " + tb + " ORDER BY task",
                "DELETE FROM " + tb + " WHERE task = ?1 AND id <= (SELECT id FROM " + tb +
                    " WHERE task = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                "DELETE FROM " + tb + " WHERE finished_at < ?1",
                "SELECT " + columns + " FROM " + tb + " WHERE 1 = 0",
                "SELECT " + columns + " FROM " + tb + " WHERE task = ?1 AND instance = ?2 ORDER BY id DESC LIMIT ?3"};
    }
    // Claims: kind 'c', fences: kind 'f' (one table). Times are the same UTC text as the lock
    // table's, so they compare as text; names compare and sort bytewise (BINARY collation).
    std::vector<std::string> claims_schema(const table_name& t) const {
        return {"CREATE TABLE IF NOT EXISTS " + sql_name(t) +
                " (\n  kind TEXT NOT NULL,\n  name VARCHAR(255) NOT NULL,\n  state VARCHAR(32) NOT NULL,\n"
                "  owner VARCHAR(255) NOT NULL,\n  fencing_token BIGINT,\n  attempt BIGINT NOT NULL,\n"
                "  claimed_at TEXT NOT NULL,\n  expires_at TEXT NOT NULL,\n  finished_at TEXT,\n"
                "  result TEXT NOT NULL,\n  PRIMARY KEY (kind, name)\n)"};
    }

    sql::claim_statements claim_texts(const table_name& t) const {
        sql::upsert_syntax syntax;
        syntax.text = [](int n) { return "?" + std::to_string(n); };
        syntax.time = syntax.text;
        syntax.integer = syntax.text;
        syntax.opt_integer = [](int n) { return "CAST(NULLIF(?" + std::to_string(n) + ", '') AS INTEGER)"; };
        return sql::upsert_claim_statements(sql_name(t), syntax);
    }
};

}  // namespace

std::unique_ptr<sql::sql_dialect> make_sqlite_dialect() { return std::make_unique<sqlite_dialect>(); }

}  // namespace shedlock::providers
