#!/usr/bin/env bash
# The PostgreSQL tests once more through the PgBouncers that server.sh starts (scripts/test.sh
# runs every providers/*/lanes.sh after the plain pass's tests, with the servers' variables set):
# transaction pooling and session pooling, PgBouncer's default settings.
#
#   lanes.sh BUILD_DIR
set -euo pipefail
build_dir="${1:?usage: lanes.sh BUILD_DIR}"
# Cases a pooler cannot serve as they are written: they look at their own server session (end it
# with pg_terminate_backend, read its TLS state or its statement_timeout, which libpq's options
# set and a pooler does not pass), or match the server's own login message, or log in as a role
# of their own (which the PgBouncers' auth_file does not list); chosen by name (a Catch tag would be the
# better mechanism). postgres_pooler_test
# covers what a pooler changes; labels serial (server restarts) and pooler (the pooled servers'
# own test) stay out too.
exclude='TLS|pg_terminate_backend|terminated|statement_timeout|wrong password equal|session ended while idle|read-only server|role is read-only'

lane() {
  local name="$1" uri="$2"
  shift 2
  [ -n "$uri" ] || { echo "postgres/lanes.sh: no PgBouncer URI for the $name lane; was server.sh started with pgbouncer installed?" >&2; exit 1; }
  echo "== PostgreSQL tests through PgBouncer, $name"
  SHEDLOCK_TEST_POSTGRES_URI="$uri" ctest --test-dir "$build_dir" --output-on-failure -j2 -E "$exclude" "$@"
}

lane "transaction pooling" "${SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI:-}" -L postgres -LE "serial|pooler"
# The CLI (schema apply, run, locks, doctor, claims, daemon) on every backend, PostgreSQL pooled.
lane "transaction pooling, the CLI" "${SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI:-}" -R '^cli_test:'
lane "session pooling" "${SHEDLOCK_TEST_PGBOUNCER_SESSION_URI:-}" -L postgres -LE "serial|pooler"
