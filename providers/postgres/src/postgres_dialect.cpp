#include <shedlock/providers/postgres_lock_provider.hpp>
#include <shedlock/providers/sql/upsert_claim_statements.hpp>

#include <cctype>
#include <optional>
#include <vector>

namespace shedlock::providers {
namespace {

using sql::slot;
using sql::statement;
using sql::statement_options;
using sql::table_name;

// now() is fixed at the start of the statement's transaction (each statement is its own), so
// every "now" in one statement agrees. What we store is truncated to ms, so a TIMESTAMP(3)
// column never rounds it up; what we compare against is the exact now (server_now_exact): Java
// ShedLock in db time stores untruncated microseconds, and its lock_until of 12:00:00.123456
// must be free at 12:00:00.123900, which the truncated 12:00:00.123 would deny.
constexpr const char* server_now = "date_trunc('milliseconds', now() AT TIME ZONE 'UTC')";
constexpr const char* server_now_exact = "(now() AT TIME ZONE 'UTC')";

// The WAL timeline this server writes on, in a token's bits 40-63: a promoted replica always
// writes on a timeline above its old primary's, so its tokens are above every token the old
// primary handed out, also the ones whose WAL never reached the replica (asynchronous
// replication). pg_walfile_name names the insert timeline's segment (its first 8 hex digits);
// on a standby pg_current_wal_lsn() fails "recovery is in progress" (55000), as a write would.
// docs/lock-semantics.md, "Fencing tokens across a PostgreSQL failover".
constexpr const char* timeline_epoch =
    "(('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::bigint << 40)";

std::string server_now_plus(int param) {
    return std::string("(") + server_now + " + $" + std::to_string(param) + "::bigint * interval '1 millisecond')";
}

std::string ts(int param) { return "$" + std::to_string(param) + "::timestamp(3)"; }

/// The expressions an acquisition writes and compares, in db time or the client's. now() is
/// fixed at the start of the statement's transaction (each statement is its own), so every "now"
/// in one statement agrees.
struct acquire_terms {
    bool fencing = false;
    std::string now, expired_by, until, owner;
    std::string next_token;   ///< a taken record's token: its old one (NULL counts as 0) + 1, above the epoch
    std::string first_token;  ///< a new record's token
    std::string returning;
    std::vector<slot> slots;
};

acquire_terms terms(const sql::quoted_lock_table& q, const statement_options& o) {
    acquire_terms a;
    a.fencing = o.fencing;
    a.now = o.db_time ? server_now : ts(3);
    a.expired_by = o.db_time ? server_now_exact : ts(3);
    a.until = o.db_time ? server_now_plus(2) : ts(2);
    a.owner = o.db_time ? "$3" : "$4";  // db time binds no client "now"
    const std::string counted = "COALESCE(" + q.table_only + "." + q.fencing_token + ", 0) + 1";
    const bool epoch = o.fencing && o.wide_fencing;
    a.next_token = epoch ? "GREATEST(" + counted + ", " + timeline_epoch + " + 1)" : counted;
    a.first_token = epoch ? std::string(timeline_epoch) + " + 1" : "1";
    a.returning = " RETURNING " + q.locked_at + ", " + q.lock_until + (o.fencing ? ", " + q.fencing_token : "");
    a.slots = o.db_time ? std::vector<slot>{slot::name, slot::at_most_ms, slot::owner}
                        : std::vector<slot>{slot::name, slot::lock_until, slot::now, slot::owner};
    return a;
}

/// The UPDATE that takes over the record of $1 when it has expired.
std::string take_over(const sql::quoted_lock_table& q, const acquire_terms& a) {
    return "UPDATE " + q.table + " SET " + q.lock_until + " = " + a.until + ", " + q.locked_at + " = " + a.now + ", " +
           q.locked_by + " = " + a.owner + (a.fencing ? ", " + q.fencing_token + " = " + a.next_token : "") +
           " WHERE " + q.name + " = $1 AND " + q.lock_until + " <= " + a.expired_by + a.returning;
}

class postgres_dialect final : public sql::sql_dialect {
public:
    explicit postgres_dialect(bool async_unlock) : async_unlock_(async_unlock) {}

    std::string name() const override { return "PostgreSQL"; }

    // Folded to lower case first: quoting keeps reserved words usable without changing which
    // table an unquoted name meant before (PostgreSQL folds unquoted names to lower case).
    // quote_exact (upper_case=true) keeps the case, for tables created with quoted names.
    std::string quote(const std::string& identifier) const override {
        std::string folded = identifier;
        for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return quote_exact(folded);
    }

    // TIMESTAMP (microseconds), not TIMESTAMP(3): Java ShedLock in db time stores and compares
    // an untruncated now(), and a (3) column rounds that up by up to 0.5 ms, so its own re-lock
    // right after its unlock was refused (docs/beside-java-shedlock.md). Ours store ms-truncated
    // values, which a microsecond column keeps exactly.
    std::string schema_sql(const sql::lock_table& t) const override {
        return create_lock_table_sql(t, {"VARCHAR(64)", "TIMESTAMP", ""});
    }

    // ONE statement, but not INSERT ... ON CONFLICT DO UPDATE ... WHERE: that form locks (and so
    // writes WAL for) the conflicting row even when its WHERE is false. Here a live lock makes
    // the UPDATE match nothing and the INSERT find the row: no write, no xid, no WAL flush. Two
    // racing takers: the second UPDATE re-checks the row the first committed and matches
    // nothing; two racing inserters (neither saw a row): the second's DO NOTHING waits and
    // inserts nothing. The INSERT's NOT EXISTS probe keeps its target list (and the timeline
    // epoch in it) from being evaluated when the row is there.
    statement acquire(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const acquire_terms a = terms(q, o);
        const std::string sql =
            "WITH taken AS (" + take_over(q, a) + "), created AS (INSERT INTO " + q.table + " (" + q.name + ", " +
            q.lock_until + ", " + q.locked_at + ", " + q.locked_by + (o.fencing ? ", " + q.fencing_token : "") +
            ") SELECT $1, " + a.until + ", " + a.now + ", " + a.owner + (o.fencing ? ", " + a.first_token : "") +
            " WHERE NOT EXISTS (SELECT 1 FROM taken) AND NOT EXISTS (SELECT 1 FROM " + q.table + " WHERE " + q.name +
            " = $1) ON CONFLICT (" + q.name + ") DO NOTHING" + a.returning +
            ") SELECT * FROM taken UNION ALL SELECT * FROM created";
        return {sql, a.slots};
    }

    // A record known to exist (known_lock_names): the UPDATE alone, as Java ShedLock's. A live
    // lock matches 0 rows; the SET list (and the epoch in it) is evaluated only for a row taken.
    std::optional<statement> acquire_existing(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const acquire_terms a = terms(q, o);
        return statement{take_over(q, a), a.slots};
    }

    std::string out_of_range_marker() const override { return "[SQLSTATE 22003]"; }

    statement unlock(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        // set_config(.., true) is local to the statement's own (implicit) transaction: the
        // asynchronous commit costs no extra round trip and affects nothing else.
        const std::string relaxed =
            async_unlock_ ? " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed" : "";
        const std::string until = released_until(q.lock_until, o.db_time ? server_now_plus(1) : ts(1), o);
        const std::string head = "UPDATE " + q.table + " SET " + q.lock_until + " = " + until + relaxed + " WHERE " +
                                 q.name + " = $2 AND " + q.locked_by + " = $3 AND " + q.lock_until + " > ";
        if (o.db_time) return {head + server_now_exact, {slot::remaining_minimum_hold_ms, slot::name, slot::owner}};
        return {head + ts(4), {slot::minimum_hold_until, slot::name, slot::owner, slot::now}};
    }

    statement extend(const sql::lock_table& t, const statement_options& o) const override {
        const auto q = quoted(t);
        const std::string owned = " WHERE " + q.name + " = $2 AND " + q.locked_by + " = $3 AND " + q.lock_until + " > ";
        const std::string returning = " RETURNING " + q.lock_until;
        if (o.db_time)
            return {"UPDATE " + q.table + " SET " + q.lock_until + " = " + server_now_plus(1) + owned + server_now_exact +
                        returning,
                    {slot::at_most_ms, slot::name, slot::owner}};
        return {"UPDATE " + q.table + " SET " + q.lock_until + " = " + ts(1) + owned + ts(4) + returning,
                {slot::lock_until, slot::name, slot::owner, slot::now}};
    }

    statement delete_record(const sql::lock_table& t) const override {
        const auto q = quoted(t);
        return {"DELETE FROM " + q.table + " WHERE " + q.name + " = $1", {slot::name}};
    }

    statement delete_expired_record(const sql::lock_table& t) const override {
        const auto q = quoted(t);
        return {"DELETE FROM " + q.table + " WHERE " + q.name + " = $1 AND " + q.lock_until + " <= " + ts(2),
                {slot::name, slot::now}};
    }

    sql::placeholder_style placeholders() const override { return sql::placeholder_style::dollar; }

    std::optional<sql::run_statement_set> run_set(const table_name& t) const override {
        return sql::run_statement_set(run_texts(t), run_schema(t), placeholders());
    }

    std::optional<sql::claim_statement_set> claim_set(const table_name& t) const override {
        return sql::claim_statement_set(claim_texts(t), claims_schema(t), placeholders());
    }

    std::string server_now_sql() const override { return std::string("SELECT ") + server_now; }

    // pg_attribute with attnum > 0 lists user columns only (no ctid, xmin, tableoid ...);
    // to_regclass resolves the quoted name as the statements do (search_path) and is NULL, not
    // an error, for a missing table. Unique alone: what ON CONFLICT (name) can infer, a unique
    // index with one key column, no predicate and no expression.
    sql::catalog_query describe_lock_table(const sql::lock_table& t) const override {
        return {"SELECT a.attname, format_type(a.atttypid, a.atttypmod), CASE WHEN EXISTS (SELECT 1 FROM "
                "pg_index i WHERE i.indrelid = a.attrelid AND i.indisunique AND i.indnkeyatts = 1 AND i.indkey[0] = "
                "a.attnum AND i.indpred IS NULL AND i.indexprs IS NULL) THEN 1 ELSE 0 END FROM pg_attribute a WHERE "
                "a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                {quoted(t).table}};
    }

    // Times: TIMESTAMP without time zone only. The statements bind and compare UTC wall times;
    // a timestamptz column would convert them through the session's TimeZone.
    sql::column_kinds kinds_of(const std::string& type) const override {
        const auto starts = [&](const char* prefix) { return type.rfind(prefix, 0) == 0; };
        return {starts("character") || type == "text",
                starts("timestamp") && type.find("without time zone") != std::string::npos,
                type == "bigint" || type == "integer" || type == "smallint", type == "bigint"};
    }

    bool column_names_ignore_case() const override { return false; }

    // An index name cannot be schema-qualified: PostgreSQL puts it in the table's schema.
    std::vector<std::string> run_schema(const table_name& t) const {
        return {"CREATE TABLE IF NOT EXISTS " + sql_name(t) +
                    " (\n  id BIGSERIAL PRIMARY KEY,\n  task VARCHAR(255) NOT NULL,\n"
                    "  lock_name VARCHAR(64) NOT NULL,\n  instance VARCHAR(255) NOT NULL,\n"
                    "  scheduled_at TIMESTAMP(3) NOT NULL,\n  started_at TIMESTAMP(3) NOT NULL,\n"
                    "  finished_at TIMESTAMP(3) NOT NULL,\n  outcome VARCHAR(16) NOT NULL,\n  fencing_token BIGINT,\n"
                    "  message TEXT NOT NULL DEFAULT '',\n  counters TEXT NOT NULL DEFAULT '',\n"
                    "  lock_lost SMALLINT NOT NULL DEFAULT 0\n)",
                "CREATE INDEX IF NOT EXISTS " + quote(t.table() + "_task_id") + " ON " + sql_name(t) + " (task, id)"};
    }

    // Times are UTC text bound as timestamp(3); task names sort bytewise (COLLATE "C"), as
    // run_store::tasks() promises, whatever the database's collation.
    sql::run_statements run_texts(const table_name& t) const {
        const std::string tb = sql_name(t);
        const std::string columns = sql::run_record_columns;
        return {"INSERT INTO " + tb + " (" + columns + ") VALUES ($1, $2, $3, " + ts(4) + ", " + ts(5) + ", " +
                    ts(6) + ", $7, NULLIF($8, '')::bigint, $9, $10, $11::smallint)",
                "SELECT " + columns + " FROM " + tb + " WHERE task = $1 ORDER BY id DESC LIMIT $2::bigint",
                "SELECT DISTINCT task COLLATE \"C\" AS task FROM " + tb + " ORDER BY 1",
                "DELETE FROM " + tb + " WHERE task = $1 AND id <= (SELECT id FROM " + tb +
                    " WHERE task = $1 ORDER BY id DESC LIMIT 1 OFFSET $2::bigint)",
                "DELETE FROM " + tb + " WHERE finished_at < " + ts(1),
                "SELECT " + columns + " FROM " + tb + " WHERE 1 = 0",
                "SELECT " + columns + " FROM " + tb +
                    " WHERE task = $1 AND instance COLLATE \"C\" = $2 ORDER BY id DESC LIMIT $3::bigint"};
    }

    // Claims: kind 'c', fences: kind 'f' (one table). name compares byte for byte (a
    // deterministic collation) and lists in byte order (COLLATE "C").
    std::vector<std::string> claims_schema(const table_name& t) const {
        return {"CREATE TABLE IF NOT EXISTS " + sql_name(t) +
                " (\n  kind VARCHAR(1) NOT NULL,\n  name VARCHAR(255) NOT NULL,\n  state VARCHAR(32) NOT NULL,\n"
                "  owner VARCHAR(255) NOT NULL,\n  fencing_token BIGINT,\n  attempt BIGINT NOT NULL,\n"
                "  claimed_at TIMESTAMP(3) NOT NULL,\n  expires_at TIMESTAMP(3) NOT NULL,\n  finished_at TIMESTAMP(3),\n"
                "  result TEXT NOT NULL,\n  PRIMARY KEY (kind, name)\n)"};
    }

    sql::claim_statements claim_texts(const table_name& t) const {
        sql::upsert_syntax syntax;
        syntax.text = [](int n) { return "$" + std::to_string(n); };
        syntax.time = [](int n) { return ts(n); };
        syntax.integer = [](int n) { return "$" + std::to_string(n) + "::bigint"; };
        syntax.opt_integer = [](int n) { return "NULLIF($" + std::to_string(n) + ", '')::bigint"; };
        syntax.bytewise = " COLLATE \"C\"";
        return sql::upsert_claim_statements(sql_name(t), syntax);
    }

private:
    bool async_unlock_;
};

}  // namespace

std::unique_ptr<sql::sql_dialect> make_postgres_dialect(bool async_unlock) {
    return std::make_unique<postgres_dialect>(async_unlock);
}

}  // namespace shedlock::providers
