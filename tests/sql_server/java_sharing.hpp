#pragma once
// The Java-sharing cases' common steps on every SQL server backend. Each backend keeps its own
// `Java` (Java ShedLock's db-time statements through its database's client, constructed from a
// table and an owner; see java_sharing_checks.hpp) and its own cases, whose words differ.
#include "java_sharing_checks.hpp"
#include "sql_server_suite.hpp"

#include <string>

namespace shedlock::test::sql_server {

/// `<stem>_<pid>`, dropped if it is there: a table of this process for one Java-sharing case.
std::string fresh_table(const std::string& stem);

/// Our provider on `table` in db time, creating the table with our DDL when it is missing.
std::unique_ptr<sql::sql_lock_provider> db_time_provider(const std::string& table);

/// How many of Java's re-locks right after its unlock were refused.
struct relock_refusals {
    int ours;    ///< on a table our DDL created (the DDL `shedlock schema apply` runs)
    int theirs;  ///< on a table `their_ddl` created
};

/// Java's lock, then `cycles` times unlock and re-lock at once, on a table our DDL creates and on
/// one that `their_ddl` creates ("{t}" = the table, `<their_stem>_<pid>`); both dropped after.
template <class Java>
relock_refusals refused_relocks(const std::string& their_stem, const std::string& their_ddl, int cycles) {
    const std::string ours = fresh_table("java_ours");
    (void)db_time_provider(ours);
    Java on_ours(ours, "java-host-1");
    const int refused_ours = refused_java_relocks(on_ours, "relock", cycles);

    const std::string theirs = fresh_table(their_stem);
    backend().exec(with_table(their_ddl, theirs));
    Java on_theirs(theirs, "java-host-1");
    const int refused_theirs = refused_java_relocks(on_theirs, "relock", cycles);
    backend().exec("DROP TABLE " + ours + ", " + theirs);
    return {refused_ours, refused_theirs};
}

/// Our provider and Java exclude each other on one table (check_exclusion_with_java).
template <class Java>
void check_exclusion_on_one_table() {
    const std::string table = fresh_table("java_shared");
    auto ours = db_time_provider(table);
    Java java(table, "java-host-2");
    check_exclusion_with_java(java, "java-host-2", *ours);
    backend().exec("DROP TABLE " + table);
}

}  // namespace shedlock::test::sql_server
