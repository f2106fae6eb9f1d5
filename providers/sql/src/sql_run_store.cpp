#include "schema_creation.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_run_store.hpp>

#include <chrono>
#include <random>
#include <thread>

namespace shedlock::providers::sql {
namespace {

using row = std::vector<std::optional<std::string>>;

const std::string& column(const row& r, std::size_t i) {
    static const std::string empty;
    return i < r.size() && r[i] ? *r[i] : empty;
}

run_record parse_row(const row& r) {
    run_record rec;
    rec.task = column(r, 0);
    rec.lock_name = column(r, 1);
    rec.instance = column(r, 2);
    rec.scheduled_at = parse_timestamp(column(r, 3));
    rec.started_at = parse_timestamp(column(r, 4));
    rec.finished_at = parse_timestamp(column(r, 5));
    try {
        rec.outcome = parse_run_outcome(column(r, 6));
    } catch (const configuration_error& e) {
        throw storage_error(storage_category::invalid_data, e.what());
    }
    if (!column(r, 7).empty()) rec.fencing_token = std::stoll(column(r, 7));
    rec.message = column(r, 8);
    rec.counters = decode_counters(column(r, 9));
    rec.lock_lost = column(r, 10) == "1";
    return rec;
}

/// The dialect's run-record set; a database without one is refused, naming the alternative.
run_statement_set run_set_of(const sql_dialect& dialect, const table_name& table) {
    auto set = dialect.run_set(table);
    if (!set) throw unsupported_operation_error(dialect.name() + " has no run-record store; keep run records in another store");
    return std::move(*set);
}

}  // namespace

sql_run_store::sql_run_store(std::unique_ptr<sql_dialect> dialect, connection_factory factory, sql_run_options options)
    : dialect_(std::move(dialect)),
      options_(std::move(options)),
      table_(options_.table),
      pool_(std::move(factory), pool_settings(options_.pool_size, options_.pool_wait), options_.pool),
      set_(run_set_of(*dialect_, table_)) {
    check_schema();
}

std::string sql_run_store::schema_sql() const {
    std::string ddl;
    for (const auto& s : set_.schema()) ddl += s + ";\n";
    return ddl;
}

void sql_run_store::check_schema() {
    try {
        pool_.run([&](sql_connection& c) { return c.execute(set_.text().probe, {}); });
        return;
    } catch (const storage_error& e) {
        if (e.category() != storage_category::missing_schema) throw;
    }
    if (!options_.create_schema_if_missing)
        throw storage_error(storage_category::missing_schema,
                            dialect_->name() + " run-record table \"" + table_.qualified() +
                                "\" does not exist" + create_missing_table_advice() + schema_sql());
    create_schema(pool_, set_.schema());
}

namespace {

/// Runs one statement that the server may roll back as a deadlock victim (InnoDB's gap locks,
/// when inserts and prunes of one task meet: category conflict). Such a statement did nothing,
/// so running it again is safe even for an INSERT; it gets `attempts` tries, a few jittered
/// milliseconds apart so that the two sides do not meet again at once. The last try's error
/// escapes. (A busy error is not retried: it already waited its timeout.)
template <typename Run>
void retry_rolled_back(Run&& run, int attempts) {
    thread_local std::minstd_rand jitter{std::random_device{}()};
    for (int attempt = 1;; ++attempt) {
        try {
            run();
            return;
        } catch (const storage_error& e) {
            if (e.category() != storage_category::conflict || attempt == attempts) throw;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500 + jitter() % (2000 * attempt)));
    }
}

/// A prune rolled back three times, or one that stayed busy, is left to the next one (retention
/// is lazy): it never fails the append.
template <typename Run>
void prune_statement(Run&& run) {
    try {
        retry_rolled_back(std::forward<Run>(run), 3);
    } catch (const storage_error& e) {
        if (e.category() != storage_category::busy && e.category() != storage_category::conflict) throw;
    }
}

}  // namespace

void sql_run_store::append(const run_record& r) {
    const std::vector<sql_param> params{
        r.task, r.lock_name, r.instance, format_timestamp(r.scheduled_at), format_timestamp(r.started_at),
        format_timestamp(r.finished_at), std::string(to_string(r.outcome)),
        r.fencing_token ? std::to_string(*r.fencing_token) : std::string(), r.message, encode_counters(r.counters),
        std::int64_t{r.lock_lost ? 1 : 0}};
    // A deadlock victim is run again (retry_rolled_back), and so is an insert that never reached
    // the server (a pooled connection closed while it idled). One lost after it was sent is
    // reported, in doubt: running it again could store the record twice.
    connection_pool& pool = pool_;
    retry_rolled_back(
        [&] { pool.run_retrying_safe([&](sql_connection& c) { return c.execute(set_.text().insert, params); }); }, 5);
    if (options_.prune_every == 0 || ++appends_ % options_.prune_every != 0) return;
    try {
        prune(r.task);
    } catch (const storage_error& e) {
        // The record is stored: say so, so that nobody counts it as lost.
        throw storage_error(e.category(), e.advice(),
                            "run record of task \"" + r.task + "\" stored, but pruning old records failed: " + e.what());
    }
}

void sql_run_store::prune(const std::string& task) {
    const auto keep = static_cast<std::int64_t>(options_.retention.max_per_task);
    prune_statement([&] { pool_.run([&](sql_connection& c) { return c.execute(set_.text().prune_count, {task, keep}); }); });
    if (options_.retention.max_age) {
        const auto cutoff = format_timestamp(system_clock::instance().now() - *options_.retention.max_age);
        prune_statement([&] { pool_.run([&](sql_connection& c) { return c.execute(set_.text().prune_age, {cutoff}); }); });
    }
}

std::vector<run_record> sql_run_store::last_runs(const std::string& task, std::size_t n) {
    return select_runs(set_.text().last_runs, {task, static_cast<std::int64_t>(n)});
}

std::vector<run_record> sql_run_store::last_runs_of_instance(const std::string& task, const std::string& instance,
                                                             std::size_t n) {
    return select_runs(set_.text().last_runs_of_instance, {task, instance, static_cast<std::int64_t>(n)});
}

std::vector<run_record> sql_run_store::select_runs(const std::string& statement, const std::vector<sql_param>& params) {
    const auto result = pool_.run([&](sql_connection& c) { return c.execute(statement, params); });
    std::vector<run_record> records;
    for (const auto& r : result.rows) records.push_back(parse_row(r));
    return records;
}

std::vector<std::string> sql_run_store::tasks() {
    const auto result = pool_.run([&](sql_connection& c) { return c.execute(set_.text().tasks, {}); });
    std::vector<std::string> names;
    for (const auto& r : result.rows) names.push_back(column(r, 0));
    return names;
}

}  // namespace shedlock::providers::sql
