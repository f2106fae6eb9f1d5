#!/usr/bin/env bash
# A throwaway Redis Cluster for the cluster tests: six redis-servers on loopback (3 primaries,
# 3 replicas), each in its own directory under DIR, with a password like server.sh's.
#
#   cluster.sh start DIR   -> start the nodes, create the cluster, wait for cluster_state:ok,
#                             print `export ...` lines
#   cluster.sh stop DIR    -> stop every node by the PIDs in DIR/node-*/pid
#
# Ports: $SHEDLOCK_REDIS_CLUSTER_PORT (63820) and the five after it; their cluster buses 10000 below
# (the default, 10000 above, would pass 65535). Persistence stays on (RDB
# and AOF, fsync every second) as a production cluster's would; a small cluster-node-timeout
# makes failovers take about a second.
set -euo pipefail
cmd="${1:?usage: cluster.sh start|stop DIR}"
dir="${2:?usage: cluster.sh start|stop DIR}"
base="${SHEDLOCK_REDIS_CLUSTER_PORT:-63820}"
password="shedlock-test-pw"
server="$(command -v redis-server || echo /usr/bin/redis-server)"
[ -x "$server" ] || { echo "redis/cluster.sh: redis-server not found; run scripts/install-deps.sh" >&2; exit 1; }
cli() { REDISCLI_AUTH="$password" redis-cli --no-auth-warning "$@"; }

start_node() {
  local p="$1" d="$dir/node-$1"
  mkdir -p "$d"
  "$server" --port "$p" --bind 127.0.0.1 --dir "$d" --daemonize no --logfile "$d/log" \
    --cluster-enabled yes --cluster-config-file "$d/nodes.conf" --cluster-node-timeout 1000 \
    --cluster-port $((p - 10000)) \
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

case "$cmd" in
  start)
    mkdir -p "$dir"
    nodes=()
    for p in $(seq "$base" $((base + 5))); do wait_port_free "$p"; wait_port_free $((p - 10000)); done
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
