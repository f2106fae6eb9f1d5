#!/usr/bin/env bash
# Throwaway Redis for the tests (see scripts/test.sh): loopback only, own ports, no persistence.
# A primary on $SHEDLOCK_REDIS_PORT (63799) with a password and two ACL users, and a read-only
# replica of it on $SHEDLOCK_REDIS_REPLICA_PORT (63798) for the READONLY test.
#
#   server.sh start DIR    -> start both, wait until ready, print `export ...` lines
#   server.sh stop DIR     -> stop both by the PIDs in DIR/pid and DIR/replica.pid
#   server.sh halt DIR     -> stop the primary only (restart test); resume DIR starts it again
set -euo pipefail
cmd="${1:?usage: server.sh start|stop|halt|resume DIR}"
dir="${2:?usage: server.sh start|stop|halt|resume DIR}"
port="${SHEDLOCK_REDIS_PORT:-63799}"
# halt/resume run without the start's environment: they use the port that start recorded, so a
# server started on its own port never comes back on the default one (someone else's).
[ "$cmd" != start ] && [ -f "$dir/port" ] && port="$(cat "$dir/port")"
replica_port="${SHEDLOCK_REDIS_REPLICA_PORT:-63798}"
[ "$cmd" != start ] && [ -f "$dir/replica_port" ] && replica_port="$(cat "$dir/replica_port")"
password="shedlock-test-pw"
server="$(command -v redis-server || echo /usr/bin/redis-server)"
[ -x "$server" ] || { echo "redis/server.sh: redis-server not found; run scripts/install-deps.sh" >&2; exit 1; }

# name port pidfile extra-args...: start in the background, wait for PING (bounded).
run_server() {
  local name="$1" p="$2" pidfile="$3"; shift 3
  "$server" --port "$p" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --dir "$dir" \
    --requirepass "$password" --logfile "$dir/$name.log" "$@" >>"$dir/$name.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    REDISCLI_AUTH="$password" redis-cli -h 127.0.0.1 -p "$p" --no-auth-warning ping 2>/dev/null | grep -q PONG && return 0
    kill -0 "$(cat "$pidfile")" 2>/dev/null || break
    sleep 0.1
  done
  echo "redis/server.sh: $name did not accept connections on port $p within 10 s; see $dir/$name.log" >&2
  tail -n 8 "$dir/$name.log" >&2 2>/dev/null || true  # also in CI, which removes DIR when it fails
  exit 1
}

run_primary() {
  # ACL users: `shedlock` may do everything; `reader` may only read (NOPERM test).
  run_server primary "$port" "$dir/pid" \
    --user shedlock on '>shedlock-user-pw' '~*' '&*' '+@all' \
    --user reader on '>reader-pw' '~*' '+@read' '+@connection'
}

stop_pid() {
  local pidfile="$1"
  [ -f "$pidfile" ] || return 0
  local pid; pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    echo "$port" >"$dir/port"
    echo "$replica_port" >"$dir/replica_port"
    run_primary
    run_server replica "$replica_port" "$dir/replica.pid" --replicaof 127.0.0.1 "$port" --masterauth "$password" \
      --dbfilename replica.rdb
    echo "export SHEDLOCK_TEST_REDIS_URI='redis://:$password@127.0.0.1:$port/0'"
    echo "export SHEDLOCK_TEST_REDIS_ACL_URI='redis://shedlock:shedlock-user-pw@127.0.0.1:$port/0'"
    echo "export SHEDLOCK_TEST_REDIS_READER_URI='redis://reader:reader-pw@127.0.0.1:$port/0'"
    echo "export SHEDLOCK_TEST_REDIS_REPLICA_URI='redis://:$password@127.0.0.1:$replica_port/0'"
    echo "export SHEDLOCK_TEST_REDIS_DIR='$dir'"
    echo "export SHEDLOCK_TEST_REDIS_SCRIPT='$(cd "$(dirname "$0")" && pwd)/server.sh'"
    ;;
  stop) stop_pid "$dir/replica.pid"; stop_pid "$dir/pid" ;;
  halt) stop_pid "$dir/pid" ;;
  resume) run_primary ;;
  *) echo "redis/server.sh: unknown command $cmd" >&2; exit 2 ;;
esac
