#!/usr/bin/env bash
# Locks and fencing tokens across a Redis Sentinel failover (issue 24), on a topology of the
# test's own (sentinel.sh, ports 63816-63819 and 26386-26388): the replica replicates through a
# relay (bench/delay_proxy, no delay) that the test freezes, so the replica LAGS:
#   1. a token is taken through the sentinel URI (replicated);
#   2. the relay is frozen: the primary hands out more tokens, and a lock is taken and kept
#      (--at-least), none of which reaches the replica;
#   3. the primary and the relay are killed (SIGKILL); the sentinels promote the replica;
#   4. through the same sentinel URI: the next token must be above every earlier one (the
#      acquire script's TIME floor), and the kept lock is tried again (overlap?).
# Before all that, `shedlock doctor` must report the Sentinel primary and the replication.
# Mode async (no wait_replicas): the overlap is recorded, not failed (asynchronous replication
# loses acquisitions). Mode wait: wait_replicas=1 on every call: the acquisitions made while the
# replica lagged must report not held (exit 69, never 75), the lock kept before the freeze must
# still be held on the new primary (no overlap), and tokens rise.
#
#   sentinel_failover_test.sh SHEDLOCK_CLI DELAY_PROXY [async|wait]
set -euo pipefail
shedlock="${1:?usage: sentinel_failover_test.sh SHEDLOCK_CLI DELAY_PROXY [async|wait]}"
relay_bin="${2:?usage: sentinel_failover_test.sh SHEDLOCK_CLI DELAY_PROXY [async|wait]}"
mode="${3:-async}"
case "$mode" in async|wait) ;; *) echo "sentinel_failover_test.sh: mode \"$mode\" is not async or wait" >&2; exit 64;; esac
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/shedlock-sentinel-failover.XXXXXX)"
export SHEDLOCK_SENTINEL_BASE=6 SHEDLOCK_SENTINEL_RELAY_PORT=63819 SHEDLOCK_SENTINEL_FAILOVER_TIMEOUT=60000
relay_pid=""
cleanup() {
  [ -n "$relay_pid" ] && { kill -CONT "$relay_pid" 2>/dev/null; kill -KILL "$relay_pid" 2>/dev/null; } || true
  "$here/sentinel.sh" stop "$work" >/dev/null 2>&1 || true
  if [ -n "${KEEP_FAILOVER_DIR:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

"$relay_bin" 63819 63816 0 >"$work/relay.log" 2>&1 &
relay_pid=$!
for _ in $(seq 1 50); do grep -q ready "$work/relay.log" && break; sleep 0.1; done
eval "$("$here/sentinel.sh" start "$work")"
extra=""
[ "$mode" = wait ] && extra="&wait_replicas=1&wait_timeout=300ms"
uri="$SHEDLOCK_TEST_SENTINEL_URI&prefix=failover&connect_timeout=1s$extra"
# After the failover the new primary has no replica left (the old primary is dead): with
# wait_replicas=1 every acquisition fails there until a replica rejoins, as it must. The calls
# after the failover therefore go without it; they check what the new primary holds.
uri_after="$SHEDLOCK_TEST_SENTINEL_URI&prefix=failover&connect_timeout=1s"

run_lock() {  # NAME [run flags]: prints the token; exit status of shedlock run
  local name="$1"; shift
  "$shedlock" run -p "${use_uri:-$uri}" -n "$name" --at-most PT10M "$@" -- sh -c 'echo "$SHEDLOCK_FENCING_TOKEN"'
}

freeze_relay() {
  kill -STOP "$relay_pid"
  for _ in $(seq 1 1000); do [ "$(awk '{print $3}' "/proc/$relay_pid/stat")" = T ] && break; sleep 0.01; done
}

status=0
# shedlock doctor sees the topology: the Sentinel primary, and the replication with or without
# wait_replicas (a warning without).
"$shedlock" doctor -p "$uri" >"$work/doctor.out" 2>&1 || true
expect_doctor() {
  grep -q "$1" "$work/doctor.out" || { echo "FAIL: doctor did not print /$1/:"; cat "$work/doctor.out"; status=1; }
}
expect_doctor '^ok    topology: sentinel: primary "shedlock-primary" at 127.0.0.1:63816 .*3 of 3 sentinels reachable'
if [ "$mode" = wait ]; then expect_doctor '^ok    topology: replication: 1 replica(s); wait_replicas=1'
else expect_doctor '^warn  topology: replication: 1 replica(s), asynchronous'; fi
first="$(run_lock job)"
kept_before=""
[ "$mode" = wait ] && kept_before="$(run_lock kept --at-least PT10M)"
freeze_relay
lagging=()
lag_exits=()
for _ in 1 2 3; do
  rc=0; t="$(run_lock job 2>>"$work/lagging.err")" || rc=$?
  lag_exits+=("$rc"); [ "$rc" -eq 0 ] && lagging+=("$t")
done
kept_lagging_rc=0
kept_lagging="$(run_lock kept_lagging --at-least PT10M 2>>"$work/lagging.err")" || kept_lagging_rc=$?

kill -KILL "$(cat "$work/primary.pid")"
kill -KILL "$relay_pid"; relay_pid=""
started=$(date +%s%N)
promoted=""
for _ in $(seq 1 300); do  # the sentinels name the replica (bounded: 30 s)
  addr="$(REDISCLI_AUTH=sentinel-test-pw redis-cli -p 26386 --no-auth-warning SENTINEL GET-MASTER-ADDR-BY-NAME shedlock-primary | tail -1)"
  [ "$addr" = 63817 ] && { promoted=yes; break; }
  sleep 0.1
done
[ -n "$promoted" ] || { echo "FAIL: the sentinels did not promote the replica within 30 s"; exit 1; }
after=""
use_uri="$uri_after"
for _ in $(seq 1 100); do  # the first call after: the replica must answer ROLE master (bounded: 10 s+)
  after="$(run_lock job 2>>"$work/after.err")" && break
  after=""; sleep 0.1
done
failover_ms=$(( ($(date +%s%N) - started) / 1000000 ))
[ -n "$after" ] || { echo "FAIL: no lock through the sentinel URI after the failover"; tail -1 "$work/after.err"; exit 1; }
retaken_rc=0; run_lock "$([ "$mode" = wait ] && echo kept || echo kept_lagging)" >/dev/null 2>>"$work/after.err" || retaken_rc=$?

echo "Redis Sentinel failover, mode $mode, replica lagging (relay frozen), primary killed:"
echo "  token before the freeze: $first; while lagging: ${lagging[*]:-none} (exits ${lag_exits[*]}); after: $after"
echo "  kill to first lock on the new primary: ${failover_ms} ms"
for t in "$first" "${lagging[@]}"; do
  [ "$after" -gt "$t" ] || { echo "FAIL: token $after after the failover is not above $t"; status=1; }
done
if [ "$mode" = async ]; then
  [ "$kept_lagging_rc" -eq 0 ] || { echo "FAIL: without wait_replicas the lagging acquisition failed ($kept_lagging_rc)"; status=1; }
  echo "  a lock taken on the old primary while the replica lagged, taken again on the new one: $([ "$retaken_rc" -eq 0 ] && echo "yes (overlap)" || echo no)"
else
  for rc in "${lag_exits[@]}" "$kept_lagging_rc"; do
    [ "$rc" -eq 69 ] || { echo "FAIL: an acquisition the replica did not acknowledge exited $rc, not 69 (not held)"; status=1; }
  done
  grep -q "wait_replicas=1" "$work/lagging.err" || { echo "FAIL: the shortfall did not name wait_replicas:"; tail -1 "$work/lagging.err"; status=1; }
  echo "  acquisitions while lagging reported not held (69): yes; lock kept before the freeze (token $kept_before) still held after: $([ "$retaken_rc" -eq 75 ] && echo yes || echo "NO (exit $retaken_rc)")"
  [ "$retaken_rc" -eq 75 ] || status=1
fi
[ "$status" -eq 0 ] && echo "PASS"
exit "$status"
