#pragma once
/// \file
/// Where a provider URI's password comes from: written in the URI (`user:pw@host`), or named by
/// it, so that no password needs to appear on a command line, in a config file or in `ps`:
/// `password_file=/run/secrets/db` (the file's first line) or `password_env=DB_PASSWORD`.

#include <shedlock/provider_uri.hpp>

#include <optional>
#include <string>
#include <vector>

namespace shedlock {

/// The password of `uri`: the one in its userinfo, else the first line of the file named by
/// `password_file` (without the line break), else the value of the environment variable named
/// by `password_env`; empty when none is given. Takes `password_file` and `password_env` from
/// `query`, so providers that call it accept both keys.
///
/// Read once, here: a provider opened from the URI keeps this password (rotate it by
/// restarting). Throws configuration_error, naming the file or the variable but never the
/// password, when more than one source is given, the file cannot be read, is readable by every
/// user (restrict it: chmod 600, or 640 for a group), or its first line is empty, or the
/// variable name is not a valid name, is unset or empty.
std::optional<std::string> read_uri_password(const provider_uri& uri, uri_options& query);

/// A further secret of `uri` named `key` (the Redis Sentinel's `sentinel_password`): the query
/// value `key`, or the first line of the file named by `<key>_file`, or the variable named by
/// `<key>_env`, with read_uri_password's rules (one source only; errors name the option, never
/// the secret). Empty when none is given.
std::optional<std::string> read_uri_secret(const provider_uri& uri, uri_options& query, const std::string& key);

/// The environment variables that hold secrets of `uri` (the ones named by `password_env` and
/// by any `<name>_password_env`).
/// A program that starts other programs, such as `shedlock run`, removes them from those
/// programs' environment, so the secret is not inherited.
std::vector<std::string> secret_environment_variables(const provider_uri& uri);

}  // namespace shedlock
