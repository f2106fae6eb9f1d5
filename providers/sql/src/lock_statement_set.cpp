#include <shedlock/providers/sql/lock_statement_set.hpp>

#include <utility>

namespace shedlock::providers::sql {
namespace {

statement checked(const sql_dialect& dialect, const char* what, statement s) {
    check_placeholders(dialect.name() + " lock " + what, s.sql, s.slots.size(), dialect.placeholders());
    return s;
}

std::optional<statement> checked(const sql_dialect& dialect, const char* what, std::optional<statement> s) {
    if (s) return checked(dialect, what, std::move(*s));
    return s;
}

statement_options past_lease(statement_options options) {
    options.hold_past_lease = true;
    return options;
}

}  // namespace

lock_statement_set::lock_statement_set(const sql_dialect& d, const lock_table& t, const statement_options& o)
    : acquire(checked(d, "acquire", d.acquire(t, o))),
      acquire_existing(checked(d, "acquire of an existing record", d.acquire_existing(t, o))),
      unlock(checked(d, "unlock", d.unlock(t, o))),
      unlock_past_lease(checked(d, "unlock past the lease", d.unlock(t, past_lease(o)))),
      extend(checked(d, "extend", d.extend(t, o))),
      list(checked(d, "list", d.list(t, o))),
      delete_record(checked(d, "delete_record", d.delete_record(t))),
      delete_expired_record(checked(d, "delete_expired_record", d.delete_expired_record(t))) {}

}  // namespace shedlock::providers::sql
