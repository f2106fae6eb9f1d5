#include "planted_dialect.hpp"

#include <stdexcept>

namespace shedlock::chaos {
namespace {

using providers::sql::statement;

/// Replaces every `from` in `text`; throws when there is none (the real statement changed
/// shape, and the bug would silently not be planted).
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("planted bug: \"" + from + "\" not found in: " + text);
    for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
}

/// "locked_by = P" -> "(locked_by = P OR 1 = 1)", P being the placeholder that follows
/// (`locked_by` = the column as the dialect quotes it).
statement drop_owner_check(statement s, const std::string& locked_by) {
    const std::string key = locked_by + " = ";
    const std::size_t at = s.sql.find(key);
    if (at == std::string::npos) throw std::logic_error("planted bug: no owner check in: " + s.sql);
    const std::size_t end = s.sql.find_first_of(" )", at + key.size());
    const std::size_t stop = end == std::string::npos ? s.sql.size() : end;
    s.sql = s.sql.substr(0, at) + "(" + s.sql.substr(at, stop - at) + " OR 1 = 1)" + s.sql.substr(stop);
    return s;
}

}  // namespace

planted_bug parse_planted_bug(const std::string& name) {
    if (name == "none") return planted_bug::none;
    if (name == "unlock_no_owner") return planted_bug::unlock_no_owner;
    if (name == "extend_no_owner") return planted_bug::extend_no_owner;
    if (name == "tokens_not_incremented") return planted_bug::tokens_not_incremented;
    if (name == "skewed_db_time") return planted_bug::skewed_db_time;
    throw std::invalid_argument("unknown planted bug \"" + name + "\"");
}

planted_dialect::planted_dialect(std::unique_ptr<providers::sql::sql_dialect> real, planted_bug bug)
    : real_(std::move(real)), bug_(bug) {}

statement planted_dialect::acquire(const providers::sql::lock_table& t, const providers::sql::statement_options& o) const {
    if (bug_ == planted_bug::skewed_db_time) {
        auto client_time = o;
        client_time.db_time = false;
        return real_->acquire(t, client_time);
    }
    statement s = real_->acquire(t, o);
    const std::string token = real_->quoted(t).fencing_token;
    if (bug_ == planted_bug::tokens_not_incremented) s.sql = replace_all(s.sql, token + " + 1", token + " + 0");
    return s;
}

statement planted_dialect::unlock(const providers::sql::lock_table& t, const providers::sql::statement_options& o) const {
    statement s = real_->unlock(t, o);
    return bug_ == planted_bug::unlock_no_owner ? drop_owner_check(s, real_->quoted(t).locked_by) : s;
}

statement planted_dialect::extend(const providers::sql::lock_table& t, const providers::sql::statement_options& o) const {
    statement s = real_->extend(t, o);
    return bug_ == planted_bug::extend_no_owner ? drop_owner_check(s, real_->quoted(t).locked_by) : s;
}

}  // namespace shedlock::chaos
