#!/usr/bin/env bash
# A PostgreSQL primary and a streaming replica for the failover tests (issue 24: the chaos
# suite's failover lanes, tests/failover_multihost_test.sh), on loopback ports of their own;
# node a starts as the primary (server.sh), node b as its replica (pg_basebackup -R). Either node
# may be the primary later.
#
#   pair.sh start DIR async|sync PORT_A PORT_B [DELAY_PROXY RELAY_A RELAY_B MICROSECONDS]
#                                     -> both up, b streaming from a; with a delay proxy (bench/
#                                        delay_proxy) each replica streams its WAL through a relay
#                                        that delays each direction (replication lag)
#   pair.sh fail_over DIR    -> SIGKILL the primary, promote the replica (waits)
#   pair.sh rejoin DIR       -> the killed node, re-cloned from the new primary, streams
#                                        again (sync: as the synchronous standby)
#   pair.sh stop DIR         -> both (and the relays) stopped by PID
# sync: synchronous_standby_names = '*' and synchronous_commit = remote_apply, set with ALTER
# SYSTEM before the clone, so every node carries them (postgresql.auto.conf).
set -euo pipefail
cmd="${1:?usage: pair.sh start|fail_over|rejoin|stop DIR ...}"
dir="${2:?usage: pair.sh start|fail_over|rejoin|stop DIR ...}"
server_sh="$(cd "$(dirname "$0")" && pwd)/server.sh"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(runuser -u postgres --)

port_of() { cat "$dir/$1.port"; }
stream_port_of() {  # NODE: where a replica of NODE reads its WAL (the relay, if any)
  if [ -f "$dir/$1.relay" ]; then cat "$dir/$1.relay"; else port_of "$1"; fi
}
other() { [ "$1" = a ] && echo b || echo a; }
pid_of() { head -1 "$dir/$1/data/postmaster.pid" 2>/dev/null || true; }
psql_at() {  # NODE SQL: one value
  PGPASSWORD=shedlock-test-pw "$bindir/psql" -qAt -h 127.0.0.1 -p "$(port_of "$1")" -U shedlock -d shedlock_test -c "$2"
}
wait_until() {  # TENTHS WHAT COMMAND...
  local tenths="$1" what="$2"
  shift 2
  for _ in $(seq 1 "$tenths"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "pair.sh: $what did not happen within $((tenths / 10)) s" >&2
  exit 1
}
is_primary() { [ "$(psql_at "$1" "SELECT pg_is_in_recovery()")" = f ]; }
streaming() {  # PRIMARY: its replica streams (sync: as the synchronous standby)
  local state="streaming"
  [ "$(cat "$dir/mode")" = sync ] && state="sync"
  [ "$(psql_at "$1" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND ('$state' = 'streaming' OR sync_state = 'sync')")" = 1 ]
}

start_replica() {  # NODE: a fresh clone of the other node, then started and streaming
  local node="$1" from
  from="$(other "$1")"
  rm -rf "$dir/$node/data"
  mkdir -p "$dir/$node/data"
  chmod 700 "$dir/$node/data"
  [ ${#as_user[@]} -gt 0 ] && chown -R postgres "$dir/$node"
  "${as_user[@]}" env PGPASSWORD=shedlock-test-pw "$bindir/pg_basebackup" -h 127.0.0.1 -p "$(stream_port_of "$from")" \
    -U shedlock -D "$dir/$node/data" -R -X stream -c fast >>"$dir/$node/basebackup.log" 2>&1
  "${as_user[@]}" "$bindir/postgres" -D "$dir/$node/data" -p "$(port_of "$node")" -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories= -c ssl=off -c hot_standby=on -c max_connections=200 \
    </dev/null >>"$dir/$node/server.log" 2>&1 &
  wait_until 100 "node $node accepting connections" "$bindir/pg_isready" -q -h 127.0.0.1 -p "$(port_of "$node")"
  wait_until 100 "node $node streaming from node $from" streaming "$from"
}

case "$cmd" in
  start)
    mode="${3:?mode async|sync}"; port_a="${4:?PORT_A}"; port_b="${5:?PORT_B}"
    case "$mode" in async|sync) ;; *) echo "pair.sh: mode \"$mode\" is not async or sync" >&2; exit 64;; esac
    for port in "$port_a" "$port_b"; do
      if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then
        echo "pair.sh: port $port is in use; stop what holds it" >&2
        exit 1
      fi
    done
    mkdir -p "$dir/a" "$dir/b"
    # The servers run as user postgres (as root): every directory above theirs must let it in.
    chmod 755 "$dir" "$(dirname "$dir")"
    echo "$mode" >"$dir/mode"; echo "$port_a" >"$dir/a.port"; echo "$port_b" >"$dir/b.port"
    SHEDLOCK_POSTGRES_PORT="$port_a" "$server_sh" start "$dir/a"
    if [ -n "${6:-}" ]; then
      for node in a b; do
        relay="$7"; [ "$node" = b ] && relay="$8"
        echo "$relay" >"$dir/$node.relay"
        "$6" "$relay" "$(port_of "$node")" "${9:?MICROSECONDS}" >"$dir/$node/relay.log" 2>&1 &
        echo $! >"$dir/$node/relay.pid"
        wait_until 50 "the relay in front of node $node ready" grep -q ready "$dir/$node/relay.log"
      done
    fi
    if [ "$mode" = sync ]; then
      psql_at a "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
      psql_at a "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" >/dev/null
      psql_at a "SELECT pg_reload_conf()" >/dev/null
    fi
    start_replica b
    echo a >"$dir/primary"
    ;;
  fail_over)
    primary="$(cat "$dir/primary")"
    replica="$(other "$primary")"
    kill -KILL "$(pid_of "$primary")"
    wait_until 100 "node $primary gone" sh -c "! kill -0 $(pid_of "$primary") 2>/dev/null"
    "${as_user[@]}" "$bindir/pg_ctl" promote -w -D "$dir/$replica/data" >/dev/null
    wait_until 100 "node $replica promoted" is_primary "$replica"
    echo "$replica" >"$dir/primary"
    ;;
  rejoin)
    start_replica "$(other "$(cat "$dir/primary")")"
    ;;
  stop)
    for node in a b; do
      [ -f "$dir/$node/relay.pid" ] && kill "$(cat "$dir/$node/relay.pid")" 2>/dev/null || true
      pid="$(pid_of "$node")"
      [ -n "$pid" ] || continue
      kill -INT "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    done
    ;;
  *) echo "pair.sh: unknown command $cmd" >&2; exit 64;;
esac
