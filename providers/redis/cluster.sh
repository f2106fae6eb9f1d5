#!/usr/bin/env bash
# A throwaway Redis Cluster for the cluster tests: six redis-servers on loopback (3 primaries,
# 3 replicas), each in its own directory under DIR, with a password like server.sh's.
#
#   cluster.sh start DIR   -> start the nodes, create the cluster, wait for cluster_state:ok,
#                             print `export ...` lines
#   cluster.sh stop DIR    -> stop every node by the PIDs in DIR/node-*/pid
#   cluster.sh fail_over DIR KEY -> kill -9 the primary of KEY's slot, wait until its replica serves
#                             the slot (the chaos suite's "restart" fault)
#   cluster.sh rejoin DIR  -> start the killed node again (it rejoins as a replica), wait for all six
#
# Ports: $SHEDLOCK_REDIS_CLUSTER_PORT (63820) and the five after it; their cluster buses 2000 below
# (the default, 10000 above, would pass 65535; 10000 below would fall in the ephemeral range, where
# a client connection can hold a port). Persistence stays on (RDB
# and AOF, fsync every second) as a production cluster's would; a small cluster-node-timeout
# (1000 ms, or SHEDLOCK_REDIS_CLUSTER_NODE_TIMEOUT) makes failovers take about a second.
# SHEDLOCK_REDIS_CLUSTER_ANNOUNCE_PORTS (six ports, node by node; set for every command): the nodes
# announce these instead of their own (proxies in front of them, the chaos suite's), so the slot
# map, redirections and replication go through them; the cluster bus stays direct.
set -euo pipefail
cmd="${1:?usage: cluster.sh start|stop|fail_over|rejoin DIR [KEY]}"
dir="${2:?usage: cluster.sh start|stop|fail_over|rejoin DIR [KEY]}"
base="${SHEDLOCK_REDIS_CLUSTER_PORT:-63820}"
node_timeout="${SHEDLOCK_REDIS_CLUSTER_NODE_TIMEOUT:-1000}"  # ms; the chaos topology raises it
password="shedlock-test-pw"
server="$(command -v redis-server || echo /usr/bin/redis-server)"
[ -x "$server" ] || { echo "redis/cluster.sh: redis-server not found; run scripts/install-deps.sh" >&2; exit 1; }
cli() { REDISCLI_AUTH="$password" redis-cli --no-auth-warning "$@"; }
read -r -a announce <<<"${SHEDLOCK_REDIS_CLUSTER_ANNOUNCE_PORTS:-}"
if [ ${#announce[@]} -ne 0 ] && [ ${#announce[@]} -ne 6 ]; then
  echo "redis/cluster.sh: SHEDLOCK_REDIS_CLUSTER_ANNOUNCE_PORTS='${announce[*]}' names ${#announce[@]} ports; give six, one per node" >&2
  exit 2
fi

announce_args() {  # PORT: the options that make node PORT announce its proxy's port
  [ ${#announce[@]} -eq 0 ] && return 0
  echo "--cluster-announce-ip 127.0.0.1 --cluster-announce-port ${announce[$(($1 - base))]}" \
    "--cluster-announce-bus-port $(($1 - 2000))"
}

own_port() {  # ANNOUNCED: the port of the node that announces it
  local i
  for i in "${!announce[@]}"; do [ "${announce[$i]}" = "$1" ] && { echo $((base + i)); return 0; }; done
  echo "$1"
}

# A node whose process still runs (a rejoin retried after a slow one) is not started twice: the
# second process would fail to bind, and its PID, recorded over the first's, would orphan it.
start_node() {
  local p="$1" d="$dir/node-$1"
  [ -f "$d/pid" ] && kill -0 "$(cat "$d/pid")" 2>/dev/null && return 0
  mkdir -p "$d"
  "$server" --port "$p" --bind 127.0.0.1 --dir "$d" --daemonize no --logfile "$d/log" \
    --cluster-enabled yes --cluster-config-file "$d/nodes.conf" --cluster-node-timeout "$node_timeout" \
    --cluster-port $((p - 2000)) $(announce_args "$p") \
    --appendonly yes --appendfsync everysec --save '3600 1' --repl-diskless-sync-delay 0 \
    --shutdown-on-sigterm now \
    --requirepass "$password" --masterauth "$password" >>"$d/log" 2>&1 &
  echo $! >"$d/pid"
}

# A port still taken (a cluster of an earlier run still shutting down, or someone else's server)
# would make the new node fail to bind: wait for it (bounded), then refuse naming it.
wait_port_free() {
  local p="$1"
  for _ in $(seq 1 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || return 0
    sleep 0.1
  done
  echo "redis/cluster.sh: port $p is still in use after 15 s; stop what listens there (ss -ltnp)" >&2
  exit 1
}

wait_ping() {
  local p="$1"
  for _ in $(seq 1 100); do
    cli -p "$p" ping 2>/dev/null | grep -q PONG && return 0
    kill -0 "$(cat "$dir/node-$p/pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "redis/cluster.sh: node $p did not accept connections within 10 s; see $dir/node-$p/log" >&2
  exit 1
}

# Every node says cluster_state:ok and three replicas have finished their first sync (a failover
# test needs a replica that holds the data).
wait_cluster_ok() {
  for _ in $(seq 1 300); do
    local ok=1 synced=0
    for p in $(seq "$base" $((base + 5))); do
      cli -p "$p" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
      cli -p "$p" info replication 2>/dev/null | grep -q 'master_link_status:up' && synced=$((synced + 1))
    done
    [ "$ok" = 1 ] && [ "$synced" = 3 ] && return 0
    sleep 0.1
  done
  echo "redis/cluster.sh: the cluster did not reach cluster_state:ok with 3 synced replicas within 30 s;" \
    "see $dir/node-*/log" >&2
  exit 1
}

stop_node() {
  local pidfile="$1/pid"
  [ -f "$pidfile" ] || return 0
  local pid; pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$pidfile"
}

owner_of_slot() {  # ASKED_PORT SLOT: the (own) port of the primary serving SLOT, as that node sees it
  local announced
  announced="$(owner_announced "$@")"
  if [ -n "$announced" ]; then own_port "$announced"; fi
}

owner_announced() {  # ASKED_PORT SLOT
  cli -p "$1" cluster nodes 2>/dev/null | awk -v slot="$2" '
    $3 ~ /master/ && $3 !~ /fail/ {
      for (i = 9; i <= NF; i++) {
        n = split($i, r, "-"); lo = r[1]; hi = (n == 2 ? r[2] : r[1])
        if ($i !~ /^\[/ && slot + 0 >= lo + 0 && slot + 0 <= hi + 0) { split($2, a, "[:@]"); print a[2]; exit }
      }
    }'
}

live_port() {  # any node that answers, but not $1
  for p in $(seq "$base" $((base + 5))); do
    [ "$p" != "$1" ] && cli -p "$p" ping 2>/dev/null | grep -q PONG && { echo "$p"; return 0; }
  done
  return 1
}

case "$cmd" in
  fail_over)
    key="${3:?usage: cluster.sh fail_over DIR KEY}"
    asked="$(live_port none)" || { echo "redis/cluster.sh: no node answers" >&2; exit 1; }
    slot="$(cli -p "$asked" cluster keyslot "$key")"
    port="$(owner_of_slot "$asked" "$slot")"
    [ -n "$port" ] || { echo "redis/cluster.sh: no primary serves slot $slot" >&2; exit 1; }
    kill -KILL "$(cat "$dir/node-$port/pid")" 2>/dev/null || true
    rm -f "$dir/node-$port/pid"
    echo "$port" >"$dir/down"
    for _ in $(seq 1 300); do
      asked="$(live_port "$port" || true)"
      if [ -n "$asked" ]; then
        now="$(owner_of_slot "$asked" "$slot")"
        if [ -n "$now" ] && [ "$now" != "$port" ] && cli -p "$now" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
          exit 0
        fi
      fi
      sleep 0.1
    done
    echo "redis/cluster.sh: no replica took slot $slot over within 30 s of killing its primary on $port" >&2
    exit 1
    ;;
  rejoin)
    [ -f "$dir/down" ] || exit 0
    port="$(cat "$dir/down")"
    start_node "$port"
    wait_ping "$port"
    wait_cluster_ok
    rm -f "$dir/down"
    ;;
  start)
    mkdir -p "$dir"
    nodes=()
    for p in $(seq "$base" $((base + 5))); do wait_port_free "$p"; wait_port_free $((p - 2000)); done
    for p in $(seq "$base" $((base + 5))); do start_node "$p"; nodes+=("127.0.0.1:$p"); done
    for p in $(seq "$base" $((base + 5))); do wait_ping "$p"; done
    cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 ||
      { echo "redis/cluster.sh: redis-cli --cluster create failed; see $dir/create.log" >&2; exit 1; }
    wait_cluster_ok
    # Every node a seed: a test that kills primaries must still find a node to read the map from.
    seeds="$(IFS=,; echo "${nodes[*]}")"
    echo "export SHEDLOCK_TEST_REDIS_CLUSTER_URI='redis-cluster://:$password@$seeds'"
    echo "export SHEDLOCK_TEST_REDIS_CLUSTER_DIR='$dir'"
    ;;
  stop)
    # TERM to all first: a primary's shutdown does not then wait for a replica stopped before it.
    for d in "$dir"/node-*; do [ -f "$d/pid" ] && { kill -TERM "$(cat "$d/pid")" 2>/dev/null || true; }; done
    for d in "$dir"/node-*; do [ -d "$d" ] && stop_node "$d"; done
    true
    ;;
  *) echo "redis/cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac
