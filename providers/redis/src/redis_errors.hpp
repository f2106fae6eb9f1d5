#pragma once
// Turning hiredis failures and Redis error replies into storage_errors that say what to do.

#include <shedlock/error.hpp>

#include <string>
#include <string_view>

namespace shedlock::providers::detail {

/// The category of an error reply: WRONGTYPE -> invalid_data, OOM/READONLY/LOADING/MASTERDOWN ->
/// unavailable, NOAUTH/WRONGPASS/NOPERM -> access_denied, BUSY -> busy, anything else -> other.
storage_category classify_reply_error(std::string_view text);

/// True for the replies of a node that is no longer (or not) the primary: READONLY, MASTERDOWN.
/// A connection that hears one is dropped, so the pool's next connection finds the primary again.
bool demoted_node_reply(std::string_view text);

/// A storage_error for an error reply to `what`. Retry advice: the refusals that apply nothing
/// (OOM, READONLY, LOADING, MASTERDOWN, BUSY) are safe to retry, the others permanent. (a command or script name) from `where`
/// ("Redis at host:port"), with advice for the known codes. The reply is quoted as shown_reply
/// shows it.
storage_error reply_error(std::string_view text, const std::string& what, const std::string& where);

/// What of an error reply to `what` a message may quote: all of it, but for AUTH (`what` starts
/// with "AUTH") only its error code. Redis repeats the arguments of a command it does not know
/// ("ERR unknown command 'AUTH', with args beginning with: '<password>'", where AUTH is renamed
/// away), and AUTH's arguments are the password: decided by the command, never by searching the
/// text for the secret.
std::string shown_reply(std::string_view text, const std::string& what);

/// A storage_error(unavailable) for a connection that failed or timed out; `advice` says
/// whether the command had been sent (in doubt: the message says it may have been applied).
storage_error io_error(std::string_view detail, const std::string& what, const std::string& where, retry_advice advice);

}  // namespace shedlock::providers::detail
