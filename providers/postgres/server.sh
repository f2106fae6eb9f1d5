#!/usr/bin/env bash
# Throwaway PostgreSQL for the tests (see scripts/test.sh): loopback only, own port, data in DIR.
#
#   server.sh start DIR    -> initdb + start, wait until ready, print `export ...` lines
#   server.sh stop DIR     -> stop by the PID in DIR/pid (also: `halt DIR`/`resume DIR` for
#                              the recovery test: stop/start without removing the data)
# The shared test server (started on the default port, or with SHEDLOCK_PGBOUNCER_PORT set)
# also gets three PgBouncers in front of it (pgbouncer.sh): transaction pooling, session pooling,
# and transaction pooling told to ignore libpq's options, on SHEDLOCK_PGBOUNCER_PORT (default
# 64336) and the two ports above it. Servers that tests start for themselves (own port) get none.
# PostgreSQL refuses to run as root: as root it runs as user `postgres` (DIR is chowned to it).
# TLS is on (fresh certificates in DIR/tls, see scripts/tls-certs.sh) and optional, so plain
# connections work as before; role `shedlock_cert` may log in only over TLS with the client
# certificate.
set -euo pipefail
cmd="${1:?usage: server.sh start|stop|halt|resume DIR}"
dir="${2:?usage: server.sh start|stop|halt|resume DIR}"
port="${SHEDLOCK_POSTGRES_PORT:-64329}"
bouncer_port="${SHEDLOCK_PGBOUNCER_PORT:-}"
[ -z "${SHEDLOCK_POSTGRES_PORT:-}" ] && [ -z "$bouncer_port" ] && bouncer_port=64336
# halt/resume run without the start's environment: they use the port that start recorded, so a
# server started on its own port never comes back on the default one (someone else's).
[ "$cmd" != start ] && [ -f "$dir/port" ] && port="$(cat "$dir/port")"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$bindir/postgres" ] || { echo "postgres/server.sh: no PostgreSQL server under /usr/lib/postgresql; run scripts/install-deps.sh" >&2; exit 1; }
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(runuser -u postgres --)

# No Unix-domain socket: every client connects over 127.0.0.1, and a socket's path is limited to
# 107 bytes, which a deep DIR (a CI checkout's build tree) exceeds, making the server refuse to start.
run_server() {
  "${as_user[@]}" "$bindir/postgres" -D "$dir/data" -p "$port" -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories= -c max_connections=200 -c fsync=on \
    -c ssl=on -c ssl_cert_file="$dir/tls/server.crt" -c ssl_key_file="$dir/tls/server.key" \
    -c ssl_ca_file="$dir/tls/ca.crt" \
    </dev/null >>"$dir/server.log" 2>&1 &
  local launcher=$!
  for _ in $(seq 1 100); do
    if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then
      # The postmaster's own PID (runuser may stay in between, or not): what stop must signal.
      head -1 "$dir/data/postmaster.pid" >"$dir/pid"
      return 0
    fi
    kill -0 "$launcher" 2>/dev/null || break
    sleep 0.1
  done
  echo "postgres/server.sh: server did not accept connections within 10 s (or exited); see $dir/server.log" >&2
  tail -n 8 "$dir/server.log" >&2 2>/dev/null || true  # also in CI, which removes DIR when it fails
  exit 1
}

stop_server() {
  [ -f "$dir/pid" ] || return 0
  local pid; pid="$(cat "$dir/pid")"
  kill -INT "$pid" 2>/dev/null || true   # fast shutdown
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    echo "$port" >"$dir/port"
    if [ ${#as_user[@]} -gt 0 ]; then
      chown postgres "$dir"
      # scripts/test.sh makes its servers dir with mktemp -d (mode 700): let `postgres` through.
      chmod a+x "$(dirname "$dir")"
    fi
    printf 'shedlock-test-pw' >"$dir/pwfile"
    [ ${#as_user[@]} -gt 0 ] && chown postgres "$dir/pwfile"
    "${as_user[@]}" "$bindir/initdb" -D "$dir/data" -U shedlock --pwfile="$dir/pwfile" -A scram-sha-256 \
      -E UTF8 --no-instructions >"$dir/initdb.log" 2>&1
    "$(dirname "$0")/../../scripts/tls-certs.sh" "$dir/tls"
    [ ${#as_user[@]} -gt 0 ] && chown -R postgres "$dir/tls"
    # First match wins: the certificate user before initdb's password lines.
    hba="$dir/data/pg_hba.conf"
    { echo "hostssl all shedlock_cert 127.0.0.1/32 cert"; cat "$hba"; } >"$hba.new" && mv "$hba.new" "$hba"
    [ ${#as_user[@]} -gt 0 ] && chown postgres "$hba"
    run_server
    PGPASSWORD=shedlock-test-pw "$bindir/psql" -q -h 127.0.0.1 -p "$port" -U shedlock -d postgres \
      -c "CREATE DATABASE shedlock_test" -c "CREATE ROLE shedlock_cert LOGIN" >/dev/null
    PGPASSWORD=shedlock-test-pw "$bindir/psql" -q -h 127.0.0.1 -p "$port" -U shedlock -d shedlock_test \
      -c "GRANT CREATE, USAGE ON SCHEMA public TO shedlock_cert" >/dev/null
    echo "export SHEDLOCK_TEST_POSTGRES_URI='postgresql://shedlock:shedlock-test-pw@127.0.0.1:$port/shedlock_test'"
    echo "export SHEDLOCK_TEST_POSTGRES_CERT_URI='postgresql://shedlock_cert@127.0.0.1:$port/shedlock_test'"
    echo "export SHEDLOCK_TEST_POSTGRES_TLS_DIR='$dir/tls'"
    echo "export SHEDLOCK_TEST_POSTGRES_DIR='$dir'"
    echo "export SHEDLOCK_TEST_POSTGRES_SCRIPT='$(cd "$(dirname "$0")" && pwd)/server.sh'"
    if [ -n "$bouncer_port" ]; then
      bouncer="$(dirname "$0")/pgbouncer.sh"
      "$bouncer" start "$dir/pgbouncer-transaction" "$port" "$bouncer_port" transaction
      "$bouncer" start "$dir/pgbouncer-session" "$port" "$((bouncer_port + 1))" session
      "$bouncer" start "$dir/pgbouncer-ignoring" "$port" "$((bouncer_port + 2))" transaction ignore_options
    fi
    ;;
  stop)
    for b in "$dir"/pgbouncer-*; do [ -d "$b" ] && "$(dirname "$0")/pgbouncer.sh" stop "$b"; done
    stop_server
    ;;
  halt) stop_server ;;
  resume) run_server ;;
  *) echo "postgres/server.sh: unknown command $cmd" >&2; exit 2 ;;
esac
