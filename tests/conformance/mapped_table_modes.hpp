#pragma once
// The conformance modes of the SQL backends beyond client_time / db_time: the suite on a table
// created with ShedLock's documented DDL under other names, as a team moving from Java ShedLock
// (or sharing its table) has it. Each backend creates the table in its own types; the names and
// the URI options that map them are here, once.
#include <string>

namespace shedlock::conformance {

/// What a conformance mode asks of an SQL backend.
struct sql_mode {
    bool db_time = false;
    /// `mapped`: table conformance_mapped, columns job / until_ts / at_ts / by_host and a
    /// fencing column fence_no, all through the URI option `columns=` (client time).
    bool mapped = false;
    /// `upper_case`: an Oracle-style table CONFORMANCE_UPPER with upper-case columns NAME,
    /// LOCK_UNTIL, LOCKED_AT, LOCKED_BY and no fencing column, through `upper_case=true` (db time).
    bool upper_case = false;

    bool expects_fencing() const { return !upper_case; }
    /// The URI query (after '?') selecting the mode's table, or "" for the default modes.
    std::string uri_query() const {
        if (mapped)
            return "table=conformance_mapped&columns=name:job,lock_until:until_ts,locked_at:at_ts,locked_by:by_host,"
                   "fencing_token:fence_no";
        if (upper_case) return "table=conformance_upper&upper_case=true&use_db_time=true";
        return "";
    }
    /// `uri` with uri_query() added.
    std::string uri_for(const std::string& uri) const {
        const std::string query = uri_query();
        if (query.empty()) return uri;
        return uri + (uri.find('?') == std::string::npos ? "?" : "&") + query;
    }
    bool own_ddl() const { return mapped || upper_case; }
};

inline sql_mode sql_mode_of(const std::string& mode) {
    sql_mode m;
    m.db_time = mode == "db_time" || mode == "upper_case";
    m.mapped = mode == "mapped";
    m.upper_case = mode == "upper_case";
    return m;
}

}  // namespace shedlock::conformance
