#!/usr/bin/env bash
# A lock whose holder stopped reporting is flagged as stale by another instance's status server,
# long before its lock_at_most_for runs out: daemon A (heartbeat every 0.3 s) runs a task that holds
# its lock (PT1H) for a minute; daemon B shares the SQLite file. SIGSTOP of A: B's /api/locks and
# page flag the lock with "stopped reporting"; SIGCONT: the flag goes; kill -9 of A: it is back.
# A clean stop deletes the heartbeat record. Two days later (every stored time moved back two days)
# daemon C starts: A's lock (P3D) is still held, so C's start-up housekeeping keeps A's heartbeat
# record and C flags the lock. Records that look like heartbeat records by name only (rows of
# another writer) are not heartbeats: C neither deletes them (fencing counter kept) nor reads
# them, and a user lock with the reserved prefix is refused before anything is written.
# Usage: stopped_reporting_test.sh <shedlock binary> <tests/observability> <work dir>
set -euo pipefail
SHEDLOCK=$1 TESTS=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
source "$TESTS/daemon_http.sh"
a_pid="" a_children=""
cleanup() {
  stop_daemon
  if [ -n "$a_pid" ]; then kill -CONT "$a_pid" 2>/dev/null || true; kill -9 "$a_pid" 2>/dev/null || true; fi
  for c in $a_children; do kill -9 "$c" 2>/dev/null || true; done
}
trap cleanup EXIT

cat >"$WORK/daemon.toml" <<TOML
[shedlock]
provider = "sqlite:$WORK/locks.db?create_schema=true"
heartbeat = "PT0.3S"
[tasks.hold]
fixed_rate = "PT1H"
lock_at_most_for = "P3D"
command = ["sleep", "60"]
TOML

# lock_json <port> <name>: the lock's object in /api/locks
lock_json() { curl -s "http://127.0.0.1:$1/api/locks" | grep -o "{\"name\":\"$2\"[^}]*}" || true; }
# wait_until <what> <command...>: up to 10 s
wait_until() {
  local what=$1
  shift
  for _ in $(seq 100); do if "$@"; then return 0; fi; sleep 0.1; done
  echo "timed out waiting for: $what" >&2
  return 1
}
is_stale() { lock_json "$b_port" hold | grep -q '"stale":true,"stale_reason":"its holder [^"]* stopped reporting'; }
not_stale() { lock_json "$b_port" hold | grep -q '"held":true.*"stale":false'; }

start_daemon "$WORK/daemon.toml" 19480 19489
a_pid=$daemon_pid a_port=$daemon_port daemon_pid=""
wait_until "A holds the lock" sh -c "curl -s http://127.0.0.1:$a_port/api/locks | grep -q '\"name\":\"hold\",[^}]*\"held\":true'"
a_children=$(pgrep -P "$a_pid" || true)
start_daemon "$WORK/daemon.toml" 19490 19499
b_port=$daemon_port
# heartbeat_json <port> <pid>: the heartbeat record held by that daemon
heartbeat_json() { curl -s "http://127.0.0.1:$1/api/locks" | grep -o "{\"name\":\"shedlock-heartbeat:300:[0-9a-f]*\",\"locked_by\":\"[^\"]*:$2:[^}]*}" || true; }
wait_until "B sees A's heartbeat" sh -c "$(declare -f heartbeat_json); heartbeat_json $b_port $a_pid | grep -q '\"held\":true'"
not_stale
sleep 1.2  # four heartbeat intervals: A keeps reporting, the lock stays fresh
not_stale

kill -STOP "$a_pid"
wait_until "the lock flagged once A's heartbeat expires" is_stale
lock_json "$b_port" hold
curl -s "http://127.0.0.1:$b_port/" | grep -q "stopped reporting"
kill -CONT "$a_pid"
wait_until "the flag gone once A reports again" not_stale

kill -9 "$a_pid"
wait "$a_pid" 2>/dev/null || true
dead_pid=$a_pid a_pid=""
wait_until "the lock flagged after A was killed" is_stale

# B stops cleanly: its heartbeat record is deleted (A's stays: A died).
b_pid=$daemon_pid
[ -n "$(heartbeat_json "$b_port" "$b_pid")" ]
stop_daemon
"$SHEDLOCK" locks -p "sqlite:$WORK/locks.db" >"$WORK/locks.txt"
cat "$WORK/locks.txt"
if grep "shedlock-heartbeat:" "$WORK/locks.txt" | grep -q ":$b_pid:"; then echo "B's heartbeat record outlived B" >&2; exit 1; fi
grep "shedlock-heartbeat:" "$WORK/locks.txt" | grep -q " heartbeat .*:$dead_pid:"  # A's, not "stuck?"

db=$WORK/locks.db
sql() { sqlite3 "$db" "$1"; }
sql_time() { echo "strftime('%Y-%m-%d %H:%M:%f', $1)"; }
sql "UPDATE shedlock SET locked_at = $(sql_time "locked_at, '-2 days'"), lock_until = $(sql_time "lock_until, '-2 days'")"
# Rows of another writer (an older version, a plain ShedLock client) named like heartbeat records:
# an expired one with fencing token 3, a held one, and a held lock of the same process.
other=batch-7:4242:q1w2e3
sql "INSERT INTO shedlock (name, lock_until, locked_at, locked_by, fencing_token) VALUES
  ('shedlock-heartbeat:1000:0123456789abcdef', $(sql_time "'now', '-2 days'"), $(sql_time "'now', '-2 days', '-1 hours'"), '${other}abcdefghijkl', 3),
  ('shedlock-heartbeat:1000:fedcba9876543210', $(sql_time "'now', '+1 hours'"), $(sql_time "'now'"), '${other}zyxwvutsrqpo', 5),
  ('report', $(sql_time "'now', '+1 hours'"), $(sql_time "'now'"), '${other}mnbvcxzlkjhg', 9)"
start_daemon "$WORK/daemon.toml" 19500 19509
b_port=$daemon_port
failures=0
failed() { echo "FAILED: $1" >&2; failures=$((failures + 1)); }
wait_until "C's own heartbeat (its start-up housekeeping done)" \
  sh -c "$(declare -f heartbeat_json); heartbeat_json $b_port $daemon_pid | grep -q '\"held\":true'"
wait_until "A's lock, two days after A died, still flagged by C" is_stale ||
  failed "A's lock (P3D) is no longer flagged two days after A died"
[ "$(sql "SELECT count(*) FROM shedlock WHERE name LIKE 'shedlock-heartbeat:300:%' AND locked_by LIKE '%:$dead_pid:%'")" = 1 ] ||
  failed "C's housekeeping deleted the heartbeat record of A, which still holds a lock"
token=$(sql "SELECT fencing_token FROM shedlock WHERE name = 'shedlock-heartbeat:1000:0123456789abcdef'")
[ "$token" = 3 ] || failed "another writer's row named like a heartbeat record: fencing token '$token', expected 3"
report=$(lock_json "$b_port" report)
echo "$report"
echo "$report" | grep -q '"held":true.*"stale":false' ||
  failed "a lock of a process that serves no status flagged by a row named like a heartbeat record"
stop_daemon

set +e
"$SHEDLOCK" run -p "sqlite:$db" -n shedlock-heartbeat:1000:0123456789abcdef --at-most PT1M -- true 2>"$WORK/reserved.txt"
status=$?
set -e
cat "$WORK/reserved.txt"
[ "$status" = 78 ] || failed "a user lock with the heartbeat prefix: exit $status, expected 78"
grep -q '"shedlock-heartbeat:1000:0123456789abcdef".*reserved' "$WORK/reserved.txt" ||
  failed "the refusal of a user lock with the heartbeat prefix does not name it and the reservation"
[ "$failures" = 0 ] || exit 1

echo "a holder that stopped reporting is flagged, unflagged when it reports again, and still flagged two days later: OK"
