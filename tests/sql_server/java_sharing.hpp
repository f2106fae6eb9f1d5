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

/// Java's re-locks right after its unlock refused in `cycles`, on a table our DDL created (the
/// DDL `shedlock schema apply` runs). The table is left for the caller to drop.
template <class Java>
int refused_relocks_on_our_ddl(const std::string& table, int cycles) {
    (void)db_time_provider(table);
    Java on_ours(table, "java-host-1");
    return refused_java_relocks(on_ours, "relock", cycles);
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
