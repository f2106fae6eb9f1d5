#!/usr/bin/env bash
# Throwaway MariaDB for the tests (see scripts/test.sh): loopback only, own port, data in DIR.
#
#   server.sh start DIR    -> install db + start, wait until ready, print `export ...` lines
#   server.sh stop DIR     -> stop by the PID in DIR/pid (also: `halt DIR`/`resume DIR` for
#                              the recovery test: stop/start without removing the data)
# TLS is on (fresh certificates in DIR/tls, see scripts/tls-certs.sh) and optional, so plain
# connections work as before; user `shedlock_cert` may log in only over TLS with the client
# certificate.
set -euo pipefail
cmd="${1:?usage: server.sh start|stop|halt|resume DIR}"
dir="${2:?usage: server.sh start|stop|halt|resume DIR}"
port="${SHEDLOCK_MARIADB_PORT:-63306}"
# halt/resume run without the start's environment: they use the port that start recorded, so a
# server started on its own port never comes back on the default one (someone else's).
[ "$cmd" != start ] && [ -f "$dir/port" ] && port="$(cat "$dir/port")"
server="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
[ -x "$server" ] || { echo "mysql/server.sh: mariadbd not found; run scripts/install-deps.sh" >&2; exit 1; }
user="$(id -un)"
# root logs in over the Unix socket (auth by socket). A socket's path is limited to 107 bytes:
# under a deep DIR (a CI checkout's build tree) it lives in a short directory of its own instead,
# recorded in DIR/socket for halt/resume/stop.
socket_file() {
  if [ ! -f "$dir/socket" ]; then
    local path="$dir/mysqld.sock"
    [ ${#path} -gt 100 ] && path="$(mktemp -d /tmp/shedlock-mariadb.XXXXXX)/mysqld.sock"
    echo "$path" >"$dir/socket"
  fi
  cat "$dir/socket"
}

run_server() {
  local socket; socket="$(socket_file)"  # once: the server's line below runs in the background
  "$server" --no-defaults --datadir="$dir/data" --port="$port" --bind-address=127.0.0.1 \
    --socket="$socket" --pid-file="$dir/mysqld.pid" --user="$user" --skip-name-resolve \
    --max-connections=300 --log-error="$dir/server.log" \
    --ssl-ca="$dir/tls/ca.crt" --ssl-cert="$dir/tls/server.crt" --ssl-key="$dir/tls/server.key" \
    </dev/null >>"$dir/server.log" 2>&1 &
  echo $! >"$dir/pid"
  for _ in $(seq 1 150); do
    mariadb-admin --no-defaults --protocol=socket --socket="$socket" -u root ping >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "mysql/server.sh: server did not accept connections within 15 s; see $dir/server.log" >&2
  tail -n 8 "$dir/server.log" >&2 2>/dev/null || true  # also in CI, which removes DIR when it fails
  exit 1
}

stop_server() {
  [ -f "$dir/pid" ] || return 0
  local pid; pid="$(cat "$dir/pid")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}

remove_own_socket_dir() {  # the short directory socket_file made, if it made one
  [ -f "$dir/socket" ] || return 0
  local socket_dir; socket_dir="$(dirname "$(cat "$dir/socket")")"
  [ "$socket_dir" != "$dir" ] && rm -rf "$socket_dir"
  rm -f "$dir/socket"
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    echo "$port" >"$dir/port"
    rm -f "$dir/socket"
    mariadb-install-db --no-defaults --datadir="$dir/data" --user="$user" --auth-root-authentication-method=socket \
      --skip-test-db >"$dir/install.log" 2>&1
    "$(dirname "$0")/../../scripts/tls-certs.sh" "$dir/tls"
    run_server
    mariadb --no-defaults --protocol=socket --socket="$(socket_file)" -u root -e "
      CREATE DATABASE shedlock_test;
      CREATE USER 'shedlock'@'127.0.0.1' IDENTIFIED BY 'shedlock-test-pw';
      GRANT ALL ON shedlock_test.* TO 'shedlock'@'127.0.0.1';
      CREATE USER 'shedlock_cert'@'127.0.0.1' REQUIRE SUBJECT '/CN=shedlock_cert';
      GRANT ALL ON shedlock_test.* TO 'shedlock_cert'@'127.0.0.1';"
    echo "export SHEDLOCK_TEST_MYSQL_URI='mysql://shedlock:shedlock-test-pw@127.0.0.1:$port/shedlock_test'"
    echo "export SHEDLOCK_TEST_MYSQL_CERT_URI='mysql://shedlock_cert@127.0.0.1:$port/shedlock_test'"
    echo "export SHEDLOCK_TEST_MARIADB_TLS_DIR='$dir/tls'"
    echo "export SHEDLOCK_TEST_MARIADB_DIR='$dir'"
    echo "export SHEDLOCK_TEST_MARIADB_SCRIPT='$(cd "$(dirname "$0")" && pwd)/server.sh'"
    ;;
  stop) stop_server; remove_own_socket_dir ;;
  halt) stop_server ;;
  resume) run_server ;;
  *) echo "mysql/server.sh: unknown command $cmd" >&2; exit 2 ;;
esac
