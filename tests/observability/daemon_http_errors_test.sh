#!/usr/bin/env bash
# `shedlock daemon --http` with bad input: a port in use and an address that is not host:port are
# clear errors in the log and the daemon goes on scheduling; with SHEDLOCK_HTTP_TOKEN a missing or
# wrong bearer token is 401, the right one 200, /healthz needs none, and the commands the daemon
# runs never see the token; listening on 0.0.0.0 without a token is a warning in the log.
# Usage: daemon_http_errors_test.sh <shedlock binary> <tests/observability> <work dir>
set -euo pipefail
SHEDLOCK=$1 TESTS=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
source "$TESTS/daemon_http.sh"
others=()
cleanup() {
  stop_daemon
  for pid in "${others[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

printf '#!/bin/sh\necho "token=${SHEDLOCK_HTTP_TOKEN:-unset}" >>%s/seen\n' "$WORK" >"$WORK/probe.sh"
chmod +x "$WORK/probe.sh"
write_config "$WORK/daemon.toml" "probe:PT1S:$WORK/probe.sh"
export SHEDLOCK_HTTP_TOKEN=t0ken-s3cret
start_daemon "$WORK/daemon.toml" 19470 19479
base="http://127.0.0.1:$daemon_port"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "$base/metrics")" = 401 ]
[ "$(code -H 'Authorization: Bearer wrong' "$base/api/tasks")" = 401 ]
[ "$(code -H "Authorization: Bearer $SHEDLOCK_HTTP_TOKEN" "$base/api/tasks")" = 200 ]
[ "$(code "$base/healthz")" = 200 ]
unset SHEDLOCK_HTTP_TOKEN

# A second daemon on the same port, one with a bad address: errors, and both keep scheduling.
check_goes_on() {  # <address> <expected log text> <log>
  "$SHEDLOCK" daemon -c "$WORK/daemon.toml" --http "$1" >"$3" 2>&1 &
  others+=($!)
  for _ in $(seq 100); do grep -q -e "--http: " "$3" && break; sleep 0.1; done
  grep -F -- "$2" "$3"
  grep -q "the daemon goes on without HTTP" "$3"
  local before after
  before=$(wc -l <"$WORK/seen")
  sleep 2.5
  kill -0 "${others[-1]}"  # still running
  after=$(wc -l <"$WORK/seen")
  [ "$after" -gt "$before" ]  # firings go on (this daemon or the first: one lock per firing)
}
check_goes_on "127.0.0.1:$daemon_port" "cannot serve HTTP on 127.0.0.1:$daemon_port: Address already in use" "$WORK/second.log"
check_goes_on "localhost" "HTTP address \"localhost\" has no port" "$WORK/third.log"
check_goes_on "127.0.0.1:99999" "not a number from 0 to 65535" "$WORK/fourth.log"
# Every address of the host without a token: served, and the log says so.
"$SHEDLOCK" daemon -c "$WORK/daemon.toml" --http "0.0.0.0:0" >"$WORK/open.log" 2>&1 &
others+=($!)
for _ in $(seq 100); do grep -q "without a bearer token" "$WORK/open.log" && break; sleep 0.1; done
grep -E "listens on 0\.0\.0\.0:[0-9]+, every address of this host, without a bearer token" "$WORK/open.log"
# The first daemon's HTTP still answers, and the commands never saw the token.
[ "$(code "$base/healthz")" = 200 ]
if grep -q "t0ken" "$WORK/seen"; then echo "a command saw SHEDLOCK_HTTP_TOKEN" >&2; exit 1; fi
grep -q "token=unset" "$WORK/seen"
echo "bad --http input: clear errors, scheduling went on: OK"
