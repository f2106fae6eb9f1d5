#!/usr/bin/env bash
# Fencing tokens across a PostgreSQL failover (issue 24), on real servers of the test's own:
# a primary (server.sh on a free port) and a streaming replica (pg_basebackup -R) that receives
# the WAL through a relay the test can freeze (bench/delay_proxy with no delay, SIGSTOP). With
# asynchronous replication:
#   1. a lock is taken and released on the primary; the replica replays it;
#   2. the relay is frozen: the primary hands out more tokens (and holds a lock) that the
#      replica never receives;
#   3. the primary is killed (SIGKILL), the replica promoted;
#   4. the new primary's tokens must be above every token the old primary handed out, on a
#      table with a BIGINT fencing column (the timeline epoch). On an INTEGER column (a plain
#      counter) they repeat: printed, not failed (docs/lock-semantics.md says so).
# It prints what it measured (tokens; whether the held lock was taken again: asynchronous
# replication loses acquisitions) and exits non-zero when a BIGINT token repeats.
# With `sync` (synchronous_standby_names='*', synchronous_commit=remote_apply) it checks instead
# that an acquisition the standby did not confirm is never reported held (the server commits
# locally when statement_timeout cancels the wait, and says so only in a WARNING), and that a lock
# held before the failover is still held on the promoted replica (no overlap).
#
#   failover_tokens_test.sh SHEDLOCK_CLI DELAY_PROXY [async|sync]
set -euo pipefail
shedlock="${1:?usage: failover_tokens_test.sh SHEDLOCK_CLI DELAY_PROXY}"
relay_bin="${2:?usage: failover_tokens_test.sh SHEDLOCK_CLI DELAY_PROXY}"
mode="${3:-async}"
case "$mode" in async|sync) ;; *) echo "failover_tokens_test.sh: mode \"$mode\" is not async or sync" >&2; exit 64;; esac
here="$(cd "$(dirname "$0")/.." && pwd)"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(runuser -u postgres --)
work="$(mktemp -d /tmp/shedlock-failover.XXXXXX)"
chmod 755 "$work"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
primary_port="$(free_port)"; replica_port="$(free_port)"; relay_port="$(free_port)"
relay_pid=""

cleanup() {
  [ -n "$relay_pid" ] && { kill -CONT "$relay_pid" 2>/dev/null; kill "$relay_pid" 2>/dev/null; } || true
  if [ -f "$work/replica/postmaster.pid" ]; then kill -KILL "$(head -1 "$work/replica/postmaster.pid")" 2>/dev/null || true; fi
  "$here/server.sh" stop "$work/primary" >/dev/null 2>&1 || true
  sleep 0.5
  if [ -n "${KEEP_FAILOVER_DIR:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

psql_at() {  # PORT SQL: one value
  PGPASSWORD=shedlock-test-pw "$bindir/psql" -qAt -h 127.0.0.1 -p "$1" -U shedlock -d shedlock_test -c "$2"
}

uri() { echo "postgresql://shedlock:shedlock-test-pw@127.0.0.1:$1/shedlock_test?table=$2&create_schema=true&connect_timeout=3s&statement_timeout=3s"; }

token() {  # PORT TABLE NAME [more run flags]: the token the command saw
  local port="$1" table="$2" name="$3"
  shift 3
  "$shedlock" run -p "$(uri "$port" "$table")" -n "$name" --at-most PT10M "$@" -- sh -c 'echo "$SHEDLOCK_FENCING_TOKEN"'
}

SHEDLOCK_POSTGRES_PORT="$primary_port" "$here/server.sh" start "$work/primary" >/dev/null
"$relay_bin" "$relay_port" "$primary_port" 0 >"$work/relay.log" 2>&1 &
relay_pid=$!
for _ in $(seq 1 50); do grep -q ready "$work/relay.log" && break; sleep 0.1; done

# The replica, copied and then streaming through the relay (pg_basebackup -R writes that).
mkdir -p "$work/replica"
chmod 700 "$work/replica"
[ ${#as_user[@]} -gt 0 ] && chown postgres "$work/replica"
"${as_user[@]}" env PGPASSWORD=shedlock-test-pw "$bindir/pg_basebackup" -h 127.0.0.1 -p "$relay_port" -U shedlock \
  -D "$work/replica" -R -X stream -c fast >"$work/basebackup.log" 2>&1
"${as_user[@]}" "$bindir/postgres" -D "$work/replica" -p "$replica_port" -c listen_addresses=127.0.0.1 \
  -c unix_socket_directories= -c ssl=off -c hot_standby=on -c max_connections=200 </dev/null >"$work/replica.log" 2>&1 &
for _ in $(seq 1 100); do "$bindir/pg_isready" -q -h 127.0.0.1 -p "$replica_port" && break; sleep 0.1; done
[ "$(psql_at "$replica_port" "SELECT pg_is_in_recovery()")" = t ] || { echo "the replica is not in recovery"; exit 1; }

psql_at "$primary_port" "CREATE TABLE narrow_locks (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP NOT NULL,
  locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, fencing_token INTEGER NOT NULL DEFAULT 0)" >/dev/null

freeze_relay() {
  kill -STOP "$relay_pid"
  # kill() returns before the stop lands: wait until the relay is stopped (state T), or a chunk
  # forwarded after the kill would reach the replica.
  for _ in $(seq 1 1000); do [ "$(awk '{print $3}' "/proc/$relay_pid/stat")" = T ] && break; sleep 0.01; done
}

fail_over() {
  # The relay dies with what it holds (the WAL the primary sent into its socket buffers stays
  # unforwarded), as a network that fails together with the primary's host.
  kill -KILL "$(cat "$work/primary/pid")"
  kill -KILL "$relay_pid"
  relay_pid=""
  "${as_user[@]}" "$bindir/pg_ctl" promote -w -D "$work/replica" >/dev/null
  [ "$(psql_at "$replica_port" "SELECT pg_is_in_recovery()")" = f ] || { echo "the replica was not promoted"; exit 1; }
}

if [ "$mode" = sync ]; then
  psql_at "$primary_port" "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
  psql_at "$primary_port" "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" >/dev/null
  psql_at "$primary_port" "SELECT pg_reload_conf()" >/dev/null
  for _ in $(seq 1 100); do
    [ "$(psql_at "$primary_port" "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] && break
    sleep 0.1
  done
  first="$(token "$primary_port" wide_locks job)"
  held="$(token "$primary_port" wide_locks held --at-least PT10M)"
  "$shedlock" doctor -p "$(uri "$primary_port" wide_locks)" >"$work/doctor.out" 2>&1 || true
  grep -q "^ok    topology: replication: 1 streaming replica(s), synchronous" "$work/doctor.out" ||
    { echo "FAIL: doctor did not report the synchronous replica:"; cat "$work/doctor.out"; exit 1; }
  freeze_relay
  status=0
  # (a) The commit waits for the standby; an operator's cancel (or a pooler's query_timeout)
  # ends the wait: the server answers success with a WARNING. Never "held".
  token "$primary_port" wide_locks canceled >"$work/canceled.out" 2>"$work/canceled.err" &
  acquire=$!
  for _ in $(seq 1 100); do
    [ "$(psql_at "$primary_port" "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")" -ge 1 ] && break
    sleep 0.05
  done
  psql_at "$primary_port" "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'" >/dev/null
  if wait "$acquire"; then
    echo "FAIL: an acquisition whose wait for the standby was canceled was reported held (token $(cat "$work/canceled.out"))"
    status=1
  fi
  grep -q "stopped waiting for the synchronous standby" "$work/canceled.err" ||
    { echo "FAIL: the canceled acquisition did not say why:"; cat "$work/canceled.err"; status=1; }
  # (b) Nobody cancels: the client's deadline ends the wait. Never "held" either.
  if unconfirmed="$(token "$primary_port" wide_locks job 2>"$work/unconfirmed.err")"; then
    echo "FAIL: an acquisition the standby never confirmed was reported held (token $unconfirmed)"
    status=1
  fi
  fail_over
  after="$(token "$replica_port" wide_locks job)"
  retaken="no"
  if token "$replica_port" wide_locks held >/dev/null 2>&1; then retaken="yes"; status=1; fi
  echo "synchronous replication (remote_apply), standby cut off, primary killed, replica promoted:"
  echo "  tokens: old primary $first (held lock: $held); new primary $after"
  echo "  unconfirmed acquisitions (wait canceled; wait past the client's deadline) reported held: no"
  echo "  the lock held on the old primary taken again on the new one: $retaken"
  [ "$after" -gt "$first" ] && [ "$after" -gt "$held" ] || { echo "FAIL: token $after is not above $first and $held"; status=1; }
  [ "$status" -eq 0 ] && echo "PASS: nothing unconfirmed was held, no overlap, tokens rising"
  exit "$status"
fi

"$shedlock" doctor -p "$(uri "$primary_port" wide_locks)" >"$work/doctor.out" 2>&1 || true
grep -q "^warn  topology: replication: 1 streaming replica(s), asynchronous" "$work/doctor.out" ||
  { echo "FAIL: doctor did not warn of the asynchronous replica:"; cat "$work/doctor.out"; exit 1; }
grep -q "^warn  topology: fencing column of \"narrow_locks\" is narrower than BIGINT" <("$shedlock" doctor -p "$(uri "$primary_port" narrow_locks)" 2>&1) ||
  { echo "FAIL: doctor did not warn of the INTEGER fencing column"; exit 1; }

# 1. Replicated.
wide=("$(token "$primary_port" wide_locks job)"); narrow=("$(token "$primary_port" narrow_locks job)")
# The insert position: the release commits asynchronously, so its record may not be written yet.
lsn="$(psql_at "$primary_port" "SELECT pg_current_wal_insert_lsn()")"
for _ in $(seq 1 100); do
  [ "$(psql_at "$replica_port" "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")" = t ] && break
  sleep 0.1
done

# 2. The WAL held back: acquisitions the replica never sees, and a lock left held (--at-least).
freeze_relay
for _ in 1 2 3; do
  wide+=("$(token "$primary_port" wide_locks job)")
  narrow+=("$(token "$primary_port" narrow_locks job)")
done
held="$(token "$primary_port" wide_locks held --at-least PT10M)"

# 3. Failover.
fail_over

# 4. The new primary.
after_wide="$(token "$replica_port" wide_locks job)"
after_narrow="$(token "$replica_port" narrow_locks job)"
status=0
retaken="no"
if token "$replica_port" wide_locks held >/dev/null 2>&1; then retaken="yes"; fi
echo "asynchronous replication, WAL held back, primary killed, replica promoted:"
echo "  BIGINT fencing column (timeline epoch): old primary ${wide[*]} (held lock: $held); new primary $after_wide"
for t in "${wide[@]}" "$held"; do
  if [ "$after_wide" -le "$t" ]; then echo "  FAIL: the new primary's token $after_wide is not above the old primary's $t"; status=1; fi
done
echo "  INTEGER fencing column (plain counter): old primary ${narrow[*]}; new primary $after_narrow"
for t in "${narrow[@]}"; do
  [ "$after_narrow" -le "$t" ] && { echo "  (expected) the INTEGER column's token $after_narrow repeats or falls below $t"; break; }
done
echo "  the lock held on the old primary (its acquisition not replicated) taken again on the new one: $retaken"
[ "$status" -eq 0 ] && echo "PASS: no BIGINT token repeated across the failover"
exit "$status"
