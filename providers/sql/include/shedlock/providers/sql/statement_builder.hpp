#pragma once
/// \file
/// The check every SQL statement passes when its set is built: its placeholders and the values
/// bound to it agree. A statement that binds a value it never uses, or uses a placeholder past
/// the values it binds, fails the first time its set is made (a dialect test builds every set),
/// not on a user's server with a message from the driver.

#include <cstddef>
#include <string>

namespace shedlock::providers::sql {

/// How a dialect writes its placeholders.
enum class placeholder_style {
    dollar,    ///< PostgreSQL: `$1`, `$2`, ... (each may repeat)
    question,  ///< SQLite, MySQL/MariaDB: `?N` numbered, or a bare `?` (one more than the highest so far)
};

/// Checks that the placeholders of `sql` are exactly 1..bound: none above `bound`, none in it
/// unused. Text inside '...', "..." and `...` is not read. Throws std::logic_error naming
/// `what` (the statement), the placeholder and the number of bound values: a mistake of the
/// dialect's author, never of a user.
void check_placeholders(const std::string& what, const std::string& sql, std::size_t bound, placeholder_style style);

}  // namespace shedlock::providers::sql
