#include <shedlock/providers/sql/upsert_claim_statements.hpp>

namespace shedlock::providers::sql {

// Claim: ONE upsert. The DO UPDATE's WHERE admits only a failed or expired record, so a done or
// live one is left untouched and no row comes back. Unqualified columns in DO UPDATE mean the
// stored row (both databases), EXCLUDED the proposed one.
claim_statements upsert_claim_statements(const std::string& tb, const upsert_syntax& s) {
    const std::string columns = "kind, name, state, owner, fencing_token, attempt, claimed_at, expires_at, finished_at, result";
    claim_statements out;
    out.claim = "INSERT INTO " + tb + " AS cur (" + columns + ") VALUES ('c', " + s.text(1) + ", 'running', " +
                s.text(2) + ", " + s.opt_integer(3) + ", 1, " + s.time(4) + ", " + s.time(5) +
                ", NULL, '') ON CONFLICT (kind, name) DO UPDATE SET state = 'running', owner = EXCLUDED.owner, "
                "fencing_token = EXCLUDED.fencing_token, attempt = cur.attempt + 1, claimed_at = EXCLUDED.claimed_at, "
                "expires_at = EXCLUDED.expires_at, finished_at = NULL, "
                "result = CASE WHEN cur.state = 'failed' THEN cur.result ELSE '' END "
                "WHERE cur.state = 'failed' OR (cur.state = 'running' AND cur.expires_at <= EXCLUDED.claimed_at) "
                "RETURNING attempt, result";
    out.finish = "UPDATE " + tb + " SET state = " + s.text(1) + ", finished_at = " + s.time(2) + ", result = " +
                 s.text(3) + " WHERE kind = 'c' AND name = " + s.text(4) + " AND owner = " + s.text(5) +
                 " AND state = 'running'";
    out.create = "INSERT INTO " + tb + " (" + columns + ") VALUES ('c', " + s.text(1) + ", " + s.text(2) + ", '', NULL, 0, " +
                 s.time(3) + ", " + s.time(4) + ", NULL, '') ON CONFLICT (kind, name) DO NOTHING";
    out.transition = "UPDATE " + tb + " SET state = " + s.text(1) + " WHERE kind = 'c' AND name = " + s.text(2) +
                     " AND state = " + s.text(3);
    out.fence = "INSERT INTO " + tb + " AS cur (" + columns + ") VALUES ('f', " + s.text(1) + ", 'fence', '', " +
                s.integer(2) + ", 0, " + s.time(3) + ", " + s.time(4) +
                ", NULL, '') ON CONFLICT (kind, name) DO UPDATE SET fencing_token = EXCLUDED.fencing_token, "
                "claimed_at = EXCLUDED.claimed_at WHERE cur.fencing_token < EXCLUDED.fencing_token";
    const std::string select = std::string("SELECT ") + claim_record_columns + " FROM " + tb + " WHERE kind = 'c'";
    out.list = select + " ORDER BY name" + s.bytewise;
    out.find = select + " AND name = " + s.text(1);
    out.reset = "DELETE FROM " + tb + " WHERE kind = 'c' AND name = " + s.text(1);
    out.purge = "DELETE FROM " + tb + " WHERE kind = 'c' AND state <> 'running' AND COALESCE(finished_at, claimed_at) < " +
                s.time(1);
    out.probe = std::string("SELECT kind, ") + claim_record_columns + " FROM " + tb + " WHERE 1 = 0";
    return out;
}

}  // namespace shedlock::providers::sql
