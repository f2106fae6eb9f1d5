#!/usr/bin/env bash
# bench/fleet under faults: an instance SIGSTOPped mid-run, an instance killed mid-run. Each run
# must end (exit 1, stderr naming the instance) instead of hanging, and leave no instance behind.
# On Redis ($SHEDLOCK_TEST_REDIS_URI, required): the fleet's keys carry the coordinator's pid, so
# no one else's run is touched. Small N and M; --stall-timeout=3 keeps it short.
#   fleet_faults_test.sh path/to/fleet
set -uo pipefail
fleet="${1:?usage: fleet_faults_test.sh path/to/fleet}"
[ -n "${SHEDLOCK_TEST_REDIS_URI:-}" ] || { echo "FAIL: SHEDLOCK_TEST_REDIS_URI is not set (source /tmp/shedlock-env.sh)"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# Waits (up to 60 s) until the coordinator $1 has $2 instances, then prints their pids.
instances_of() {
  for _ in $(seq 1 600); do
    local pids; pids="$(pgrep -P "$1" | tr '\n' ' ')"
    [ "$(echo $pids | wc -w)" -ge "$2" ] && { echo "$pids"; return 0; }
    sleep 0.1
  done
  return 1
}

# One fault: $1 names it, $2 the signal sent to the first instance, $3 the text stderr must hold.
run_fault() {
  local what="$1" signal="$2" expected="$3"
  SHEDLOCK_TEST_POSTGRES_URI= SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI= \
    "$fleet" --instances=2 --tasks=20 --rounds=3 --threads=1 --hold=1 --stall-timeout=3 --backends=redis \
    >"$work/$what.out" 2>"$work/$what.err" &
  local coordinator=$!
  local pids; pids="$(instances_of "$coordinator" 4)" || { echo "FAIL $what: the fleet did not start its instances"; failures=$((failures + 1)); kill -KILL "$coordinator"; return; }
  local victim="${pids%% *}"
  # The first firing is under way once an instance reports its warm-up: wait for the first round.
  for _ in $(seq 1 600); do grep -q "round 1" "$work/$what.err" && break; sleep 0.1; done
  kill "-$signal" "$victim"
  wait "$coordinator"; local rc=$?
  kill -CONT "$victim" 2>/dev/null
  if [ "$rc" -ne 1 ]; then echo "FAIL $what: exit $rc, expected 1"; failures=$((failures + 1)); fi
  if ! grep -q "$expected" "$work/$what.err"; then
    echo "FAIL $what: stderr does not say \"$expected\":"; cat "$work/$what.err"; failures=$((failures + 1))
  fi
  for pid in $pids; do
    if kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ]; then
      echo "FAIL $what: instance $pid outlived the coordinator"; failures=$((failures + 1)); kill -KILL "$pid"
    fi
  done
}

run_fault stopped STOP "sent nothing for 3 s: it is stopped or hung"
run_fault killed KILL "instance 1 of 2"

[ "$failures" -eq 0 ] && echo "fleet_faults_test: every fault ended the run with the instance named" && exit 0
exit 1
