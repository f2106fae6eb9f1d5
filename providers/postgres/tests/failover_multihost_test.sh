#!/usr/bin/env bash
# One multi-host URI across a PostgreSQL failover (issue 24), on real servers of the test's own
# (free loopback ports, ../pair.sh): a primary and a streaming replica (pg_basebackup -R, async).
#   1. A URI whose first server is a closed port and whose second is the standby reaches the
#      primary behind them (`shedlock run` exits 0); a URI naming only the standby is refused
#      as unavailable (exit 69: a failover to wait out), never "held elsewhere". `shedlock
#      doctor` names the server the list reached, and warns under target_session_attrs=any.
#   2. `shedlock daemon` runs a task every 200 ms with ONE URI listing the primary and the
#      replica. The primary is killed (SIGKILL) and the replica promoted; the daemon, its URI
#      unchanged, must fire again: its broken pooled connections are replaced by new ones that
#      find the new primary. The fencing tokens it saw must never repeat, and those after the
#      failover must be above every one before (the timeline epoch).
# It prints what it saw (firings before/after, tokens, the daemon's failed firings meanwhile).
#
#   failover_multihost_test.sh SHEDLOCK_CLI
set -euo pipefail
shedlock="${1:?usage: failover_multihost_test.sh SHEDLOCK_CLI}"
here="$(cd "$(dirname "$0")/.." && pwd)"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
# Ports the kernel says are free now (fixed ones such as 54350-54352 lie in the ephemeral range:
# a client connection elsewhere may hold one as its local port, seen making the start fail).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
primary_port="$(free_port)"; replica_port="$(free_port)"; closed_port="$(free_port)"
work="$(mktemp -d /tmp/shedlock-multihost.XXXXXX)"
# The pair lives deeper than a Unix socket's path limit, as in CI's build tree (pair.sh once
# failed there): every directory on the way must let user postgres in (servers run as it as root).
pair="$work/$(printf 'p%.0s' $(seq 1 90))/pair"
mkdir -p "$(dirname "$pair")"
chmod 755 "$work" "$(dirname "$pair")"
daemon_pid=""

cleanup() {
  [ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null || true
  "$here/pair.sh" stop "$pair" >/dev/null 2>&1 || true
  if [ -n "${KEEP_FAILOVER_DIR:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

psql_at() {  # PORT SQL: one value
  PGPASSWORD=shedlock-test-pw "$bindir/psql" -qAt -h 127.0.0.1 -p "$1" -U shedlock -d shedlock_test -c "$2"
}

uri() {  # SERVERS (host:port,...)
  echo "postgresql://shedlock:shedlock-test-pw@$1/shedlock_test?table=multihost_locks&create_schema=true&connect_timeout=3s&statement_timeout=3s"
}

wait_for() {  # SECONDS WHAT COMMAND...: polls COMMAND every 0.1 s until it succeeds
  local seconds="$1" what="$2"
  shift 2
  for _ in $(seq 1 $((seconds * 10))); do "$@" && return 0; sleep 0.1; done
  echo "FAIL: $what within ${seconds} s"
  exit 1
}

"$here/pair.sh" start "$pair" async "$primary_port" "$replica_port" >"$work/pair.log" 2>&1 ||
  { echo "FAIL: the primary and replica did not start:"; cat "$work/pair.log"; exit 1; }
[ "$(psql_at "$replica_port" "SELECT pg_is_in_recovery()")" = t ] || { echo "FAIL: the replica is not in recovery"; exit 1; }

# 1. Passing over a closed port and a standby; a standby alone.
"$shedlock" run -p "$(uri "127.0.0.1:$closed_port,127.0.0.1:$replica_port,127.0.0.1:$primary_port")" -n reach \
  --at-most PT10M -- true || { echo "FAIL: the multi-host URI did not reach the primary behind a closed port and a standby"; exit 1; }
[ "$(psql_at "$primary_port" "SELECT count(*) FROM multihost_locks WHERE name = 'reach'")" = 1 ] ||
  { echo "FAIL: the lock row is not on the primary"; exit 1; }
# doctor names the server the list reached, and warns of target_session_attrs=any.
listed="127.0.0.1:$closed_port,127.0.0.1:$replica_port,127.0.0.1:$primary_port"
"$shedlock" doctor -p "$(uri "$listed")" >"$work/doctor.out" 2>&1 || true
grep -q "^ok    topology: servers: 3 in the URI, target_session_attrs=read-write; this connection reached 127.0.0.1:$primary_port" \
  "$work/doctor.out" || { echo "FAIL: doctor did not report the server reached:"; cat "$work/doctor.out"; exit 1; }
"$shedlock" doctor -p "$(uri "127.0.0.1:$replica_port,127.0.0.1:$primary_port")&target_session_attrs=any" >"$work/doctor-any.out" 2>&1 || true
grep -q "^warn  topology: servers: 2 in the URI, target_session_attrs=any; this connection reached 127.0.0.1:$replica_port" \
  "$work/doctor-any.out" || { echo "FAIL: doctor did not warn of target_session_attrs=any on a standby:"; cat "$work/doctor-any.out"; exit 1; }
set +e
"$shedlock" run -p "$(uri "127.0.0.1:$replica_port")" -n standby --at-most PT10M -- true 2>"$work/standby.err"
standby_status=$?
set -e
[ "$standby_status" -eq 69 ] || { echo "FAIL: a standby alone gave exit $standby_status, not 69:"; cat "$work/standby.err"; exit 1; }
if grep -q shedlock-test-pw "$work/standby.err"; then echo "FAIL: the password in a message"; exit 1; fi

# 2. A daemon across the failover, its URI unchanged.
cat >"$work/daemon.toml" <<EOF
[shedlock]
provider = "$(uri "127.0.0.1:$primary_port,127.0.0.1:$replica_port")"
default_lock_at_most_for = "PT10S"
default_lock_at_least_for = "PT0S"

[tasks.tick]
fixed_delay = "PT0.2S"
command = ["sh", "-c", "echo {fencing_token} >> $work/ticks"]
EOF
: >"$work/ticks"
"$shedlock" daemon -c "$work/daemon.toml" >"$work/daemon.out" 2>"$work/daemon.err" &
daemon_pid=$!
ticks() { wc -l <"$work/ticks"; }
wait_for 30 "3 firings before the failover" sh -c "[ \$(wc -l <'$work/ticks') -ge 3 ]"
"$here/pair.sh" fail_over "$pair" >>"$work/pair.log" 2>&1  # SIGKILL the primary, promote the replica
before="$(ticks)"
[ "$(psql_at "$replica_port" "SELECT pg_is_in_recovery()")" = f ] || { echo "FAIL: the replica was not promoted"; exit 1; }
wait_for 60 "3 firings after the promotion, on the same URI" sh -c "[ \$(wc -l <'$work/ticks') -ge $((before + 3)) ]"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || true
daemon_pid=""

status=0
mapfile -t tokens <"$work/ticks"
repeated="$(sort "$work/ticks" | uniq -d | head -3 | tr '\n' ' ')"
[ -z "$repeated" ] || { echo "FAIL: tokens repeated: $repeated"; status=1; }
last_before="${tokens[$((before - 1))]}"
for t in "${tokens[@]:$before}"; do
  [ "$t" -gt "$last_before" ] || { echo "FAIL: token $t after the failover is not above $last_before"; status=1; }
done
if grep -q shedlock-test-pw "$work/daemon.err" "$work/daemon.out"; then echo "FAIL: the password in the daemon's output"; status=1; fi
echo "one multi-host URI (primary, replica), primary killed, replica promoted:"
echo "  firings: ${before} before, $(( ${#tokens[@]} - before )) after; tokens ${tokens[0]} .. $last_before | ${tokens[$before]} .. ${tokens[-1]}"
echo "  failed firings logged by the daemon meanwhile: $(grep -ci "unavailable\|failed" "$work/daemon.err" || true)"
[ "$status" -eq 0 ] && echo "PASS: the daemon kept running on the promoted replica with its URI unchanged; no token repeated"
exit "$status"
