#!/usr/bin/env bash
# The servers the tests run on listen on ports outside the kernel's ephemeral range.
#
# Inside it (Linux: 32768-60999), any client connection on the machine can be given the port as
# its local port, and a server started afterwards cannot bind it: CI failed that way, PgBouncer
# "cannot listen on 127.0.0.1:54336: bind(): Address already in use" with nothing listening.
#
# Checks every host:port of every SHEDLOCK_TEST_*URI in the environment (the shared servers that
# scripts/test.sh started) and, when SHEDLOCK_TEST_REDIS_CLUSTER_URI is set (cluster_test.sh),
# the cluster's bus ports as its nodes report them. Fails when it finds fewer than MIN_URIS URIs
# (default 3: PostgreSQL, MariaDB, Redis): a check of no server proves nothing.
#
#   server_ports_test.sh [MIN_URIS]
set -euo pipefail
min_uris="${1:-3}"

read -r low high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { low=32768 high=60999; }
failures=0 checked=0

check_port() {  # PORT WHAT
  checked=$((checked + 1))
  if [ "$1" -ge "$low" ] && [ "$1" -le "$high" ]; then
    echo "FAIL: $2 uses port $1, inside the ephemeral range $low-$high; give it a port outside it" >&2
    failures=$((failures + 1))
  fi
}

# postgresql://user:pw@h1:p1,h2:p2/db, redis://:pw@h:p/0, redis-cluster://:pw@h:p,h:p
ports_of_uri() {
  local rest="${1#*://}"
  rest="${rest##*@}"
  rest="${rest%%/*}"
  rest="${rest%%\?*}"
  tr ',' '\n' <<<"$rest" | sed -n 's/.*:\([0-9][0-9]*\)$/\1/p'
}

uris=0
while IFS='=' read -r name value; do
  uris=$((uris + 1))
  for port in $(ports_of_uri "$value"); do check_port "$port" "$name"; done
done < <(env | grep -E '^SHEDLOCK_TEST_[A-Z_]*URI=' || true)

if [ -n "${SHEDLOCK_TEST_REDIS_CLUSTER_URI:-}" ]; then
  seed="$(ports_of_uri "$SHEDLOCK_TEST_REDIS_CLUSTER_URI" | head -n 1)"
  password="${SHEDLOCK_TEST_REDIS_CLUSTER_URI#*://:}"
  password="${password%%@*}"
  # CLUSTER NODES lines: <id> <ip>:<port>@<bus port> ...
  buses="$(REDISCLI_AUTH="$password" redis-cli -p "$seed" cluster nodes | sed -n 's/^[^ ]* [^ ]*@\([0-9][0-9]*\).*/\1/p')"
  [ "$(wc -w <<<"$buses")" -ge 6 ] || { echo "FAIL: the cluster on $seed reported no six bus ports: $buses" >&2; exit 1; }
  for port in $buses; do check_port "$port" "a Redis Cluster bus"; done
fi

if [ "$uris" -lt "$min_uris" ]; then
  echo "FAIL: found $uris SHEDLOCK_TEST_*URI variables, expected at least $min_uris (run under scripts/test.sh)" >&2
  exit 1
fi
echo "$checked ports of $uris URIs checked against the ephemeral range $low-$high: $failures inside it"
[ "$failures" -eq 0 ]
