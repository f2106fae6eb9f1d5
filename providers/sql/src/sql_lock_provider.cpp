#include "lock_table_check.hpp"
#include "schema_creation.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sql/lock_calls.hpp>
#include <shedlock/providers/sql/lock_statement_set.hpp>
#include <shedlock/providers/sql/sql_lock_provider.hpp>
#include <shedlock/utf8.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>

namespace shedlock::providers::sql {
namespace {

/// What makes one listed value unreadable (a message, never an exception's internal name).
struct unreadable_value : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace

sql_lock_provider::sql_lock_provider(std::unique_ptr<sql_dialect> dialect, connection_factory factory,
                                     sql_lock_options options, const shedlock::clock& clock)
    : lock_provider(clock),
      dialect_(std::move(dialect)),
      options_(std::move(options)),
      table_(lock_table::with_case(table_name(options_.table), options_.columns, options_.upper_case)),
      pool_(std::move(factory), pool_settings(options_.pool_size, options_.pool_wait), options_.pool),
      known_(known_lock_names::make_registered(record_table(), options_.known_record_ttl)) {
    check_schema();
    const lock_statement_set statements(*dialect_, table_, statement_options_());  // checks every placeholder
    acquire_ = statements.acquire;
    acquire_existing_ = statements.acquire_existing;
    unlock_ = statements.unlock;
    unlock_past_lease_ = statements.unlock_past_lease;
    extend_ = statements.extend;
}

std::vector<described_column> sql_lock_provider::describe_table() {
    const catalog_query query = dialect_->describe_lock_table(table_);
    const std::vector<sql_param> params(query.params.begin(), query.params.end());
    return described_columns(pool_.run_retrying_safe([&](sql_connection& c) { return c.execute(query.sql, params); }));
}

std::string sql_lock_provider::missing_table_hint() const {
    return " (if it exists under other names: map them with the URI option columns=, e.g. columns=name:job; "
           "upper_case=true for a table created with quoted upper-case names)";
}

// One catalog query describes the whole table, so a table another instance creates meanwhile is
// seen either not at all or complete (two probes, table then fencing column, once raced into
// running without fencing tokens). After creating the table, it is judged like any other: a
// CREATE ... IF NOT EXISTS leaves an existing table as it is, with whatever columns it has.
void sql_lock_provider::check_schema() {
    auto columns = describe_table();
    if (columns.empty()) {
        if (!options_.create_schema_if_missing)
            throw storage_error(storage_category::missing_schema,
                                dialect_->name() + " lock table \"" + record_table() + "\" does not exist" +
                                    missing_table_hint() + create_missing_table_advice() + schema_sql());
        create_schema(pool_, {schema_sql()});
        columns = describe_table();
    }
    const auto verdict = check_lock_columns(*dialect_, table_, columns);
    fencing_ = verdict.fencing;
    wide_fencing_ = verdict.wide_fencing;
}

// A record seen recently is taken over by the plain UPDATE alone (a refusal: one UPDATE of 0
// rows); any other name by the full statement (known_lock_names says why, and for how long).
std::optional<lease> sql_lock_provider::do_try_lock(const lock_configuration& config, const std::string& owner) {
    const slot_values v = acquire_values(config, owner, clock().now());
    const auto asked = std::chrono::steady_clock::now();
    const statement& s = acquire_statement(acquire_, acquire_existing_, *known_, config.name(), asked);
    try {
        const auto result = pool_.run_retrying_safe([&](sql_connection& c) { return c.execute(s.sql, bind(s, v)); });
        auto granted = read_acquired(result, dialect_->acquire_reports(), fencing_, config, owner, v);
        if (acquire_existing_) known_->record_answer(config.name(), &s != &acquire_, granted.has_value(), asked);
        return granted;
    } catch (const storage_error&) {
        std::rethrow_exception(fencing_overflow_advice().explain(std::current_exception()));
    }
}

fencing_overflow sql_lock_provider::fencing_overflow_advice() const {
    if (!fencing_) return {};
    const auto q = dialect_->quoted(table_);
    return {dialect_->out_of_range_marker(),
            "; the fencing column " + q.fencing_token + " of \"" + record_table() +
                "\" holds no next token: widen it (" + dialect_->widen_to_bigint_sql(q.table, q.fencing_token) + ")"};
}

void sql_lock_provider::do_unlock(const lease& held) {
    const slot_values v = unlock_values(held, clock().now(), remaining_minimum_hold(held));
    // The unlock may commit asynchronously where the dialect allows it: if the server loses it
    // in a crash, the lock merely stays until its lock_until.
    const statement& release = minimum_hold_outlasts_lease(held) ? unlock_past_lease_ : unlock_;
    pool_.run_retrying_in_doubt([&](sql_connection& c) { return c.execute_relaxed(release.sql, bind(release, v)); });
}

std::optional<lease> sql_lock_provider::do_extend(const lease& held, std::chrono::milliseconds at_most,
                                                  std::chrono::milliseconds minimum_hold) {
    const slot_values v = extend_values(held, clock().now(), at_most);
    const auto result =
        pool_.run_retrying_in_doubt([&](sql_connection& c) { return c.execute(extend_.sql, bind(extend_, v)); });
    return read_extended(result, dialect_->acquire_reports(), held, v, minimum_hold);
}

lock_statement_set sql_lock_provider::statements() const { return {*dialect_, table_, statement_options_()}; }

namespace {

/// The value of column `i` of a listed row as a time; throws naming the column and the value.
timestamp listed_time(const std::vector<std::optional<std::string>>& row, std::size_t i, const std::string& column) {
    try {
        return column_time(row, i, {});
    } catch (const std::exception&) {
        throw unreadable_value(column + " \"" + printable_text(row[i].value_or(""), 64) + "\" is not a timestamp");
    }
}

std::int64_t listed_integer(const std::string& text, const std::string& column) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size())
        throw unreadable_value(column + " \"" + printable_text(text, 64) + "\" is not an integer");
    return value;
}

/// One listed row; a value no parser can read (a year past 9999 written by an old version, a
/// foreign writer, another client's different mapping) marks this record unreadable, naming the
/// column and the value, instead of failing the whole listing.
lock_record read_record(const std::vector<std::optional<std::string>>& row, bool fencing, const quoted_lock_table& q) {
    lock_record r{row.at(0).value_or(""), row.at(1).value_or(""), {}, {}, std::nullopt, ""};
    try {
        r.locked_at = listed_time(row, 2, "locked_at column " + q.locked_at);
        r.lock_until = listed_time(row, 3, "lock_until column " + q.lock_until);
        if (fencing && row.size() > 4 && row[4])
            r.fencing_token = listed_integer(*row[4], "fencing_token column " + q.fencing_token);
    } catch (const unreadable_value& e) {
        r.unreadable = e.what();
        r.locked_at = timestamp{};
        r.lock_until = timestamp::max();
    }
    return r;
}

}  // namespace

std::vector<lock_record> sql_lock_provider::list_locks() {
    const statement stmt = dialect_->list(table_, statement_options_());
    const auto result = pool_.run_retrying_safe([&](sql_connection& c) { return c.execute(stmt.sql, {}); });
    std::vector<lock_record> records;
    records.reserve(result.rows.size());
    const auto q = dialect_->quoted(table_);
    for (const auto& row : result.rows) records.push_back(read_record(row, fencing_, q));
    return records;
}

timestamp sql_lock_provider::lock_time_now() { return options_.use_db_time ? server_now() : clock().now(); }

// Sightings are dropped after the deletes: one recorded meanwhile would outlive its record.
void sql_lock_provider::delete_records(const std::vector<std::string>& names) {
    const statement stmt = dialect_->delete_record(table_);
    for (const auto& name : names) {
        slot_values v{name, "", clock().now(), {}, {}, {}, {}};
        pool_.run_retrying_safe([&](sql_connection& c) { return c.execute(stmt.sql, bind(stmt, v)); });
    }
    known_lock_names::forget_everywhere(record_table(), names);
}

std::size_t sql_lock_provider::delete_expired_records(const std::vector<std::string>& names, timestamp expired_by) {
    const statement stmt = dialect_->delete_expired_record(table_);
    std::size_t deleted = 0;
    for (const auto& name : names) {
        slot_values v{name, "", expired_by, {}, {}, {}, {}};
        const auto result = pool_.run_retrying_safe([&](sql_connection& c) { return c.execute(stmt.sql, bind(stmt, v)); });
        deleted += static_cast<std::size_t>(std::max<std::int64_t>(result.affected_rows, 0));
    }
    known_lock_names::forget_everywhere(record_table(), names);
    return deleted;
}

std::vector<topology_note> sql_lock_provider::topology() {
    auto notes = pool_.run_retrying_safe([](sql_connection& c) { return c.topology(); });
    if (fencing_ && !wide_fencing_ && dialect_->kinds_of("bigint").integer_64)
        notes.push_back({"fencing column of \"" + record_table() +
                             "\" is narrower than BIGINT: tokens are a plain counter and can repeat across a failover "
                             "(ALTER TABLE ... ALTER COLUMN ... TYPE BIGINT)",
                         true});
    return notes;
}

timestamp sql_lock_provider::server_now() {
    const auto result = pool_.run_retrying_safe([&](sql_connection& c) { return c.execute(dialect_->server_now_sql(), {}); });
    if (result.rows.empty() || result.rows.front().empty() || !result.rows.front().front())
        throw storage_error(storage_category::invalid_data, dialect_->name() + " returned no server time");
    return parse_timestamp(*result.rows.front().front());
}

}  // namespace shedlock::providers::sql
