#!/usr/bin/env bash
# A throwaway PgBouncer in front of the test PostgreSQL (issue 24): loopback only, own port, files
# in DIR, PgBouncer's DEFAULT settings except where it must be told where things are (listen
# address and port, the database, authentication) and the pool mode.
#
#   pgbouncer.sh start DIR PG_PORT LISTEN_PORT transaction|session [ignore_options]
#                                                                     -> prints `export ...` lines
# ignore_options: `ignore_startup_parameters = options`, the setting users add after the default
# refused libpq's options (the connection is then pooled without any sign of it); its variables
# are SHEDLOCK_TEST_PGBOUNCER_<MODE>_IGNORING_URI.
#   pgbouncer.sh stop DIR                                             -> stops it by the PID in DIR/pid
# PgBouncer refuses to run as root: as root it runs as user `postgres` (DIR is chowned to it).
set -euo pipefail
cmd="${1:?usage: pgbouncer.sh start DIR PG_PORT LISTEN_PORT MODE | stop DIR}"
dir="${2:?usage: pgbouncer.sh start DIR PG_PORT LISTEN_PORT MODE | stop DIR}"
bouncer="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(runuser -u postgres --)

start() {
  local pg_port="${3:?PG_PORT}" port="${4:?LISTEN_PORT}" mode="${5:?MODE: transaction or session}" extra="${6:-}"
  local ignore_line="" suffix=""
  case "$extra" in
    "") ;;
    ignore_options) ignore_line="ignore_startup_parameters = options"; suffix="_IGNORING" ;;
    *) echo "pgbouncer.sh: \"$extra\" is not ignore_options (or nothing)" >&2; exit 64 ;;
  esac
  case "$mode" in transaction|session) ;; *) echo "pgbouncer.sh: pool mode \"$mode\" is not transaction or session" >&2; exit 64;; esac
  [ -x "$bouncer" ] || { echo "pgbouncer.sh: pgbouncer not found; run scripts/install-deps.sh" >&2; exit 1; }
  mkdir -p "$dir"
  # The password the test PostgreSQL's server.sh gives role shedlock; PgBouncer answers SCRAM with it.
  printf '"shedlock" "shedlock-test-pw"\n' >"$dir/userlist.txt"
  # shedlock_one: one server connection for all clients, so that two clients' statements meet on
  # it every time (a named prepared statement of one is then seen by the other).
  # unix_socket_dir empty: no Unix socket (clients use 127.0.0.1; a deep DIR exceeds its path limit).
  cat >"$dir/pgbouncer.ini" <<INI
[databases]
shedlock_test = host=127.0.0.1 port=$pg_port dbname=shedlock_test
shedlock_one = host=127.0.0.1 port=$pg_port dbname=shedlock_test pool_size=1
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = $mode
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
$ignore_line
INI
  if [ ${#as_user[@]} -gt 0 ]; then chown -R postgres "$dir"; chmod a+x "$(dirname "$dir")"; fi
  "${as_user[@]}" "$bouncer" -d "$dir/pgbouncer.ini" >>"$dir/start.log" 2>&1
  for _ in $(seq 1 100); do
    if [ -s "$dir/pgbouncer.pid" ] && PGPASSWORD=shedlock-test-pw psql -qAt -h 127.0.0.1 -p "$port" -U shedlock \
         -d shedlock_test -c "SELECT 1" >/dev/null 2>&1; then
      cp "$dir/pgbouncer.pid" "$dir/pid"
      local var="SHEDLOCK_TEST_PGBOUNCER_${mode^^}${suffix}_URI"
      echo "export $var='postgresql://shedlock:shedlock-test-pw@127.0.0.1:$port/shedlock_test'"
      echo "export ${var%_URI}_ONE_URI='postgresql://shedlock:shedlock-test-pw@127.0.0.1:$port/shedlock_one'"
      return 0
    fi
    sleep 0.1
  done
  echo "pgbouncer.sh: pgbouncer did not answer within 10 s; see $dir/pgbouncer.log and $dir/start.log" >&2
  # Their last lines here too: a CI run removes DIR when it fails.
  tail -n 8 "$dir/pgbouncer.log" "$dir/start.log" >&2 2>/dev/null || true
  ss -ltnp "sport = :$port" >&2 2>/dev/null || true
  exit 1
}

stop() {
  [ -f "$dir/pid" ] || return 0
  local pid; pid="$(cat "$dir/pid")"
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}

case "$cmd" in
  start) start "$@" ;;
  stop) stop ;;
  *) echo "pgbouncer.sh: unknown command \"$cmd\" (start or stop)" >&2; exit 64 ;;
esac
