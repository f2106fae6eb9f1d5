#pragma once
/// \file
/// What differs between SQL databases: statement texts and how a result says "acquired".

#include <shedlock/providers/sql/sql_connection.hpp>
#include <shedlock/providers/sql/statement_builder.hpp>
#include <shedlock/providers/sql/store_statement_sets.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shedlock::providers::sql {

/// True for a plain identifier: a letter or '_' first, then letters, digits and '_', at most 63
/// characters (PostgreSQL's limit, the tightest of the three databases).
bool is_plain_identifier(const std::string& s);

/// A validated table reference `[schema.]table`: letters, digits, '_' only. Dialects still
/// quote it (sql_dialect::sql_name), so reserved words such as `select` or `order` work.
class table_name {
public:
    /// Throws configuration_error naming the value when it is not a plain identifier.
    explicit table_name(const std::string& qualified);
    const std::optional<std::string>& schema() const noexcept { return schema_; }
    const std::string& table() const noexcept { return table_; }
    std::string qualified() const { return schema_ ? *schema_ + "." + table_ : table_; }

private:
    std::optional<std::string> schema_;
    std::string table_;
};

/// The lock table's column names (ShedLock's `withColumnNames`), unquoted. Each is a plain
/// identifier (the same rules as table_name); the fencing column is optional in the table.
struct lock_columns {
    std::string name = "name";
    std::string lock_until = "lock_until";
    std::string locked_at = "locked_at";
    std::string locked_by = "locked_by";
    std::string fencing_token = "fencing_token";

    /// Reads a mapping `key:column,...` (any subset of the five keys above). Throws
    /// configuration_error naming the value and the fix for an unknown key, a key given twice,
    /// a column used for two keys, or a column that is not a plain identifier.
    static lock_columns parse(const std::string& mapping);
    /// Every name in upper case (ShedLock's `withDbUpperCase`).
    lock_columns upper_case() const;
};

/// The lock table as every lock statement sees it: where it is, what its columns are called,
/// and whether those names are meant in their exact case. By default a dialect writes names as
/// an unquoted name would mean them (PostgreSQL folds them to lower case); `exact_case` (the
/// `upper_case=true` option) quotes them as given, for tables created with quoted upper-case
/// names (Oracle-style `"SHEDLOCK"` on PostgreSQL).
class lock_table {
public:
    /// ShedLock's column names, folded as unquoted names.
    lock_table(table_name table) : table_(std::move(table)) {}  // NOLINT: a plain table is a lock table
    lock_table(table_name table, lock_columns columns, bool exact_case)
        : table_(std::move(table)), columns_(std::move(columns)), exact_case_(exact_case) {}
    /// `table` and `columns` upper-cased and meant exactly, when `upper_case` (else as given).
    static lock_table with_case(const table_name& table, const lock_columns& columns, bool upper_case);

    const table_name& table() const noexcept { return table_; }
    const lock_columns& columns() const noexcept { return columns_; }
    bool exact_case() const noexcept { return exact_case_; }

private:
    table_name table_;
    lock_columns columns_;
    bool exact_case_ = false;
};

/// The lock table's names as a statement writes them: each quoted for the dialect.
struct quoted_lock_table {
    std::string table;       ///< `[schema.]table`
    std::string table_only;  ///< the table without its schema, to qualify a column (`t.col`)
    std::string name, lock_until, locked_at, locked_by, fencing_token;
};

/// The types of a lock table's columns in one dialect's DDL (locked_by is VARCHAR(255) and
/// fencing_token BIGINT everywhere).
struct lock_column_types {
    std::string name;          ///< e.g. VARCHAR(64)
    std::string time;          ///< lock_until and locked_at, e.g. TIMESTAMP
    std::string table_suffix;  ///< after the closing parenthesis, e.g. " DEFAULT CHARSET = utf8mb4"
};

/// What a column's declared type can hold, in one dialect's vocabulary (several may be true:
/// SQLite's TEXT holds both our text and our times).
struct column_kinds {
    bool text = false;     ///< a lock name or holder: character or byte strings
    bool time = false;     ///< lock_until, locked_at: as the dialect's statements write times
    bool integer = false;  ///< fencing_token
    /// A 64-bit integer: room for an epoch in a token's high bits (PostgreSQL's tokens that
    /// never repeat across a failover). Dialects that do not use it leave it false.
    bool integer_64 = false;
};

/// One user column of the lock table as the catalog describes it (system columns such as
/// PostgreSQL's ctid or SQLite's rowid are never listed).
struct described_column {
    std::string name;        ///< as stored in the catalog
    std::string type;        ///< the declared type, as the catalog writes it (for messages)
    bool unique_alone = false;  ///< the primary key on this column alone, or alone in a unique index
};

/// A catalog query: its text and the strings it binds, in placeholder order.
struct catalog_query {
    std::string sql;
    std::vector<std::string> params;
};

/// Values a statement may bind; the dialect lists which ones, in placeholder order.
enum class slot {
    name,                      ///< lock name
    owner,                     ///< owner token (locked_by)
    now,                       ///< client "now" as timestamp text
    lock_until,                ///< client now + lock_at_most_for, as text
    minimum_hold_until,        ///< client now + the remaining minimum hold, as text
    at_most_ms,                ///< lock_at_most_for in ms (integer), for server-clock arithmetic
    remaining_minimum_hold_ms, ///< remaining lock_at_least_for in ms (>= 0), for server-clock arithmetic
};

/// How the acquire statement reports success.
enum class acquire_result {
    returning_row,  ///< one row (fencing_token, locked_at, lock_until) iff acquired
    affected_rows,  ///< affected rows > 0 iff acquired; token in last_insert_id
};

struct statement {
    std::string sql;
    std::vector<slot> slots;
};

/// Which variant of a statement to build.
struct statement_options {
    bool fencing = true;   ///< the table has a fencing_token column
    bool db_time = false;  ///< "now" is the database server's clock
    /// Unlock only: the release may set lock_until past its stored value (the handle's minimum
    /// hold outlasts its lease). Without it the release is capped at the stored lock_until.
    bool hold_past_lease = false;
    /// The fencing column holds 64 bits (column_kinds::integer_64): a dialect may put an epoch in
    /// the token's high bits (PostgreSQL: the WAL timeline, so a promoted replica never hands
    /// out a token its old primary did).
    bool wide_fencing = false;
};

/// A database's SQL, in three sets: the lock statements (every dialect: the pure virtuals below,
/// built and checked as a lock_statement_set), and where the database has them the run-record
/// statements (run_set) and the claim statements (claim_set). Implementations are stateless and
/// thread-safe.
class sql_dialect {
public:
    virtual ~sql_dialect() = default;
    virtual std::string name() const = 0;
    /// `identifier` quoted for this database as an unquoted name would mean it (default:
    /// standard SQL double quotes; PostgreSQL folds to lower case first).
    virtual std::string quote(const std::string& identifier) const { return quote_exact(identifier); }
    /// `identifier` quoted in its exact case (default: standard SQL double quotes).
    virtual std::string quote_exact(const std::string& identifier) const;
    /// The quoted `[schema.]table` to write into SQL text.
    std::string sql_name(const table_name& table) const;
    /// Every name of the lock table, quoted (exactly when table.exact_case()).
    quoted_lock_table quoted(const lock_table& table) const;
    /// CREATE TABLE for the lock table (ShedLock columns + fencing_token), under its mapped names.
    virtual std::string schema_sql(const lock_table& table) const = 0;
    /// The CREATE TABLE IF NOT EXISTS of schema_sql, under the table's names, in `types`.
    std::string create_lock_table_sql(const lock_table& table, const lock_column_types& types) const;
    /// One atomic statement: insert if absent, take over if expired, else write nothing.
    virtual statement acquire(const lock_table& table, const statement_options& options) const = 0;
    virtual acquire_result acquire_reports() const { return acquire_result::returning_row; }
    /// The acquisition of a lock whose record exists (known_lock_names): ONE plain UPDATE of an
    /// expired record, same slots and same answer as acquire(), so that a refusal costs the
    /// server what Java ShedLock's refused UPDATE does. None (the default): the dialect's acquire
    /// refuses as cheaply, and runs every time.
    virtual std::optional<statement> acquire_existing(const lock_table&, const statement_options&) const {
        return std::nullopt;
    }
    /// What this database's error messages (as its provider writes them) carry when a value
    /// exceeded its column's type: in an acquire, the fencing column is full (a token at an
    /// INTEGER column's maximum). Empty (default): not recognised.
    virtual std::string out_of_range_marker() const { return {}; }
    /// The DDL that widens the quoted `column` of the quoted `table` to a 64-bit integer, for
    /// the message of a full fencing column (default: `ALTER TABLE .. ALTER COLUMN .. TYPE bigint`).
    virtual std::string widen_to_bigint_sql(const std::string& table, const std::string& column) const {
        return "ALTER TABLE " + table + " ALTER COLUMN " + column + " TYPE bigint";
    }
    /// Owner-checked release to minimum_hold_until (or server now + remaining_minimum_hold_ms),
    /// capped at the stored lock_until (released_until()) unless options.hold_past_lease.
    virtual statement unlock(const lock_table& table, const statement_options& options) const = 0;
    /// Owner-checked, live-only extension; reports a row (lock_until) or affected rows > 0.
    virtual statement extend(const lock_table& table, const statement_options& options) const = 0;
    /// SELECT name, locked_by, locked_at, lock_until[, fencing_token] ... ORDER BY name.
    virtual statement list(const lock_table& table, const statement_options& options) const;
    /// The table's user columns, one row each: (column name, declared type, 1 when the column is
    /// the primary key alone or alone in a unique index without predicate, else 0). No row: no
    /// such table. One query, run at start-up; sql_lock_provider judges the rows.
    virtual catalog_query describe_lock_table(const lock_table& table) const = 0;
    /// What a type from describe_lock_table can hold in this dialect's statements.
    virtual column_kinds kinds_of(const std::string& declared_type) const = 0;
    /// Whether the catalog's column names compare without regard to ASCII case (MySQL, SQLite);
    /// PostgreSQL's compare exactly, after quote() folded them.
    virtual bool column_names_ignore_case() const { return true; }
    /// DELETE of one record by name (tools only: benchmark cleanup). Default uses `?`.
    virtual statement delete_record(const lock_table& table) const;
    /// DELETE of one record by name iff `lock_until <= ` the bound time (slot::now). Default uses `?`.
    virtual statement delete_expired_record(const lock_table& table) const;
    /// The server clock as timestamp text (for clock-offset checks).
    virtual std::string server_now_sql() const = 0;
    /// The smaller of two SQL expressions of the same type (default: LEAST; SQLite: MIN).
    virtual std::string least(const std::string& a, const std::string& b) const;
    /// The value an unlock writes to lock_until: `until`, capped at the stored lock_until (the
    /// quoted column `lock_until`) unless
    /// the minimum hold outlasts the lease. A release that arrives late (held in transit,
    /// re-sent after a timeout) then never lengthens the lease.
    std::string released_until(const std::string& lock_until, const std::string& until,
                               const statement_options& options) const {
        return options.hold_past_lease ? until : least(lock_until, until);
    }

    /// How this database writes placeholders (the statement sets check them by it).
    virtual placeholder_style placeholders() const = 0;

    /// The run-record store's statements and table DDL, or none when this database keeps no
    /// run records (default). Throws std::logic_error when a statement's placeholders do not
    /// match its parameters (see run_statement_set).
    virtual std::optional<run_statement_set> run_set(const table_name& table) const;
    /// The idempotency store's statements and table DDL, or none when this database keeps no
    /// claims (default); checked as run_set.
    virtual std::optional<claim_statement_set> claim_set(const table_name& table) const;
};

}  // namespace shedlock::providers::sql
