#include "schema_creation.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/sql/sql_idempotency_store.hpp>

namespace shedlock::providers::sql {
namespace {

using claim_row = std::vector<std::optional<std::string>>;

const std::string& claim_column(const claim_row& r, std::size_t i) {
    static const std::string empty;
    return i < r.size() && r[i] ? *r[i] : empty;
}

std::int64_t claim_integer(const std::string& text) {
    try {
        return std::stoll(text);
    } catch (const std::exception&) {
        throw storage_error(storage_category::invalid_data, "claims table holds \"" + text + "\" where a number belongs");
    }
}

/// A row in claim_record_columns order.
claim_record parse_claim_row(const claim_row& r) {
    claim_record rec;
    rec.key = claim_column(r, 0);
    rec.state = claim_column(r, 1);
    rec.owner = claim_column(r, 2);
    if (!claim_column(r, 3).empty()) rec.fencing_token = claim_integer(claim_column(r, 3));
    rec.attempt = claim_integer(claim_column(r, 4));
    rec.claimed_at = parse_timestamp(claim_column(r, 5));
    rec.expires_at = parse_timestamp(claim_column(r, 6));
    if (!claim_column(r, 7).empty()) rec.finished_at = parse_timestamp(claim_column(r, 7));
    rec.result = claim_column(r, 8);
    return rec;
}

/// The dialect's claim set; a database without one is refused, naming the alternative.
claim_statement_set claim_set_of(const sql_dialect& dialect, const table_name& table) {
    auto set = dialect.claim_set(table);
    if (!set) throw unsupported_operation_error(dialect.name() + " has no idempotency store; keep claims in another store");
    return std::move(*set);
}

}  // namespace

sql_idempotency_store::sql_idempotency_store(std::unique_ptr<sql_dialect> dialect, connection_factory factory,
                                             sql_idempotency_options options, const shedlock::clock& clock)
    : idempotency_store(clock),
      dialect_(std::move(dialect)),
      options_(std::move(options)),
      table_(options_.table),
      pool_(std::move(factory), pool_settings(options_.pool_size, options_.pool_wait), options_.pool),
      set_(claim_set_of(*dialect_, table_)) {
    check_schema();
}

std::string sql_idempotency_store::schema_sql() const {
    std::string ddl;
    for (const auto& s : set_.schema()) ddl += s + ";\n";
    return ddl;
}

void sql_idempotency_store::check_schema() {
    try {
        run(set_.text().probe, {});
        return;
    } catch (const storage_error& e) {
        if (e.category() != storage_category::missing_schema) throw;
    }
    if (!options_.create_schema_if_missing)
        throw storage_error(storage_category::missing_schema,
                            dialect_->name() + " claims table \"" + table_.qualified() +
                                "\" does not exist" + create_missing_table_advice() + schema_sql());
    create_schema(pool_, set_.schema());
}

sql_result sql_idempotency_store::run(const std::string& sql, const std::vector<sql_param>& params) {
    return pool_.run([&](sql_connection& c) { return c.execute(sql, params); });
}

claim_result sql_idempotency_store::do_claim(const std::string& key, std::chrono::milliseconds claim_for,
                                             std::optional<std::int64_t> fencing_token, const std::string& owner) {
    const auto now = clock().now();
    const auto expires = now + claim_for;
    const std::string token = fencing_token ? std::to_string(*fencing_token) : std::string();
    // A record reset between the upsert and the read is claimed again (a few times at most).
    for (int round = 0; round < 3; ++round) {
        const auto written =
            run(set_.text().claim, {key, owner, token, format_timestamp(now), format_timestamp(expires)});
        std::optional<claim_record> record;
        if (!written.rows.empty()) {
            record = claim_record{key, std::string(claim_state::running), owner, fencing_token,
                                  claim_integer(claim_column(written.rows.front(), 0)), now, expires, std::nullopt,
                                  claim_column(written.rows.front(), 1)};
        } else if (written.affected_rows == 1) {
            // No RETURNING (MySQL): 1 affected row is a new record (a take-over reports 2), so its
            // attempt and result are known without reading it back.
            record = claim_record{key, std::string(claim_state::running), owner, fencing_token, 1, now, expires,
                                  std::nullopt, std::string()};
        } else {
            const auto found = run(set_.text().find, {key});
            if (found.rows.empty()) continue;
            record = parse_claim_row(found.rows.front());
        }
        if (record->owner == owner && record->state == claim_state::running) {  // ours (row or affected rows)
            idempotency_claim claim{key, owner, record->attempt, fencing_token, now, expires, record->result};
            return {claim_status::claimed, std::move(claim), std::move(*record)};
        }
        const auto status = record->state == claim_state::done ? claim_status::already_done : claim_status::in_progress;
        return {status, std::nullopt, std::move(*record)};
    }
    throw storage_error(storage_category::conflict, "claim of \"" + key +
                                                        "\": the record was deleted three times while claiming; retry");
}

finish_status sql_idempotency_store::do_finish(const idempotency_claim& claim, std::string_view state,
                                               const std::string& result) {
    const std::vector<sql_param> params{std::string(state), format_timestamp(clock().now()), result, claim.key, claim.owner};
    // Owner-checked, so safe twice: the pooled connection usually idled through the whole task
    // and may have died with a restart or a killed session; losing the completion would let the
    // work run again after claim_for.
    const auto r =
        pool_.run_retrying_in_doubt([&](sql_connection& c) { return c.execute(set_.text().finish, params); });
    return r.affected_rows > 0 ? finish_status::finished : finish_status::claim_lost;
}

bool sql_idempotency_store::do_transition(const std::string& key, const std::string& from, const std::string& to) {
    if (from.empty()) {
        const auto now = format_timestamp(clock().now());
        return run(set_.text().create, {key, to, now, now}).affected_rows > 0;
    }
    return run(set_.text().transition, {to, key, from}).affected_rows > 0;
}

bool sql_idempotency_store::do_fence(const std::string& resource, std::int64_t token) {
    const auto now = format_timestamp(clock().now());
    return run(set_.text().fence, {resource, token, now, now}).affected_rows > 0;
}

std::vector<claim_record> sql_idempotency_store::do_list(const std::optional<std::string>& key) {
    const auto result = key ? run(set_.text().find, {*key}) : run(set_.text().list, {});
    std::vector<claim_record> records;
    for (const auto& r : result.rows) records.push_back(parse_claim_row(r));
    return records;
}

bool sql_idempotency_store::do_reset(const std::string& key) {
    return run(set_.text().reset, {key}).affected_rows > 0;
}

std::size_t sql_idempotency_store::do_purge(timestamp cutoff) {
    return static_cast<std::size_t>(run(set_.text().purge, {format_timestamp(cutoff)}).affected_rows);
}

}  // namespace shedlock::providers::sql
