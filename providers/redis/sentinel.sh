#!/usr/bin/env bash
# A Redis Sentinel topology of its own (issue 24): a primary, a replica and three sentinels on
# loopback, own directory, stopped by PID. The shared test Redis (server.sh) is never touched.
#
#   sentinel.sh start DIR    -> start all five, wait until the sentinels know the primary and its
#                               replica, print `export ...` lines
#   sentinel.sh stop DIR     -> stop every process whose PID file is in DIR
#   sentinel.sh with CMD...  -> start in a fresh temporary DIR, run CMD with the variables set,
#                               stop, and exit with CMD's status (the ctest entry uses this)
#   sentinel.sh fail_over DIR -> kill -9 the node the sentinels name as primary, wait until they
#                               name the other one (the chaos suite's "restart" fault)
#   sentinel.sh rejoin DIR    -> start the killed node again as a replica of the new primary
#
# Ports (SHEDLOCK_SENTINEL_BASE, default 0: primary 63810, replica 63811, sentinels 26380-26382;
# base N adds N to each, so a second topology can run beside). With SHEDLOCK_SENTINEL_RELAY_PORT
# set, the replica replicates from that port (a bench/delay_proxy in front of the primary, which
# the failover test freezes); that test also raises SHEDLOCK_SENTINEL_FAILOVER_TIMEOUT (ms), or the
# sentinels would repoint the replica at the primary itself after it. Small down-after (1000 ms,
# or SHEDLOCK_SENTINEL_DOWN_AFTER ms: the chaos topology raises it, so that a loaded machine does
# not trip a failover nobody asked for) and failover-timeout (4000 ms): a failover completes in a
# few seconds. The sentinels rewrite their
# config files: those live in DIR. SHEDLOCK_SENTINEL_ANNOUNCE_PORTS ("P R", set for every command):
# the primary and the replica announce these ports instead of their own (proxies in front of them,
# the chaos suite's), so the sentinels, replication and the clients reach the nodes through them. Passwords: the data nodes `shedlock-test-pw`, the sentinels
# `sentinel-test-pw` (their own requirepass).
set -euo pipefail
cmd="${1:?usage: sentinel.sh start|stop DIR | with CMD...}"
dir="${2:?usage: sentinel.sh start|stop DIR | with CMD...}"
base="${SHEDLOCK_SENTINEL_BASE:-0}"
primary_port=$((63810 + base)); replica_port=$((63811 + base))
sentinel_ports=($((26380 + base)) $((26381 + base)) $((26382 + base)))
read -r -a announce <<<"${SHEDLOCK_SENTINEL_ANNOUNCE_PORTS:-$primary_port $replica_port}"
[ ${#announce[@]} -eq 2 ] || { echo "redis/sentinel.sh: SHEDLOCK_SENTINEL_ANNOUNCE_PORTS='${announce[*]}': give two ports, the primary's and the replica's" >&2; exit 2; }
password="shedlock-test-pw"; sentinel_password="sentinel-test-pw"; master="shedlock-primary"
server="$(command -v redis-server || echo /usr/bin/redis-server)"
sentinel_bin="$(command -v redis-sentinel || echo /usr/bin/redis-sentinel)"
[ -x "$sentinel_bin" ] || { echo "redis/sentinel.sh: redis-sentinel not found; run scripts/install-deps.sh (Debian package redis-sentinel)" >&2; exit 1; }

stop_pid() {
  local pidfile="$1" pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

cli() {  # PORT PASSWORD ARGS...
  local p="$1" pw="$2"; shift 2
  REDISCLI_AUTH="$pw" redis-cli -h 127.0.0.1 -p "$p" --no-auth-warning "$@"
}

wait_for() {  # WHAT PIDFILE COMMAND...: until the command succeeds (bounded, 20 s)
  local what="$1" pidfile="$2"; shift 2
  for _ in $(seq 1 200); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$pidfile")" 2>/dev/null || break
    sleep 0.1
  done
  echo "redis/sentinel.sh: $what not ready within 20 s; see $dir/*.log" >&2
  exit 1
}

announced_port() {  # NODE (primary or replica): the port it announces
  if [ "$1" = primary ]; then echo "${announce[0]}"; else echo "${announce[1]}"; fi
}

alive() {  # PIDFILE: its process runs
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# A node whose process still runs (a rejoin retried after a slow one) is not started twice: the
# second process would fail to bind, and its PID, recorded over the first's, would orphan the node
# that runs. The PID file gets a new process's PID only once it answers.
run_node() {  # NAME PORT EXTRA...
  local name="$1" p="$2"; shift 2
  alive "$dir/$name.pid" && return 0
  mkdir -p "$dir/$name"
  "$server" --port "$p" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --dir "$dir/$name" \
    --requirepass "$password" --masterauth "$password" --logfile "$dir/$name.log" \
    --replica-announce-ip 127.0.0.1 --replica-announce-port "$(announced_port "$name")" "$@" >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid.new"
  if ! (wait_for "$name on port $p" "$dir/$name.pid.new" sh -c "REDISCLI_AUTH=$password redis-cli -h 127.0.0.1 -p $p --no-auth-warning ping | grep -q PONG"); then
    stop_pid "$dir/$name.pid.new"
    exit 1
  fi
  mv "$dir/$name.pid.new" "$dir/$name.pid"
}

run_sentinel() {  # INDEX PORT
  local name="sentinel$1" p="$2"
  cat >"$dir/$name.conf" <<CONF
port $p
bind 127.0.0.1
daemonize no
dir $dir
logfile $dir/$name.log
requirepass $sentinel_password
sentinel monitor $master 127.0.0.1 ${announce[0]} 2
sentinel auth-pass $master $password
sentinel down-after-milliseconds $master ${SHEDLOCK_SENTINEL_DOWN_AFTER:-1000}
sentinel failover-timeout $master ${SHEDLOCK_SENTINEL_FAILOVER_TIMEOUT:-4000}
sentinel parallel-syncs $master 1
CONF
  "$sentinel_bin" "$dir/$name.conf" >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
}

replica_known() {  # PORT: the sentinel lists the replica as up
  cli "$1" "$sentinel_password" SENTINEL REPLICAS "$master" | grep -qx "${announce[1]}"
}

if [ "$cmd" = with ]; then
  shift
  work="$(mktemp -d /tmp/shedlock-sentinel.XXXXXX)"
  trap '"$0" stop "$work"; rm -rf "$work"' EXIT
  eval "$("$0" start "$work")"
  status=0
  "$@" || status=$?
  exit "$status"
fi

current_primary_port() {  # as the first sentinel that answers says
  local port
  for p in "${sentinel_ports[@]}"; do
    port="$(cli "$p" "$sentinel_password" SENTINEL GET-MASTER-ADDR-BY-NAME "$master" 2>/dev/null | sed -n 2p)"
    [ -n "$port" ] && { echo "$port"; return 0; }
  done
  return 1
}

rejoined() {  # NODE PORT
  cli "$2" "$password" info replication | grep -q 'master_link_status:up' ||
    [ "$(current_primary_port || true)" = "$(announced_port "$1")" ]
}

node_on() {  # ANNOUNCED PORT: primary or replica (the node started as that)
  [ "$1" = "${announce[0]}" ] && echo primary || echo replica
}

case "$cmd" in
  fail_over)
    port="$(current_primary_port)" || { echo "redis/sentinel.sh: no sentinel names a primary" >&2; exit 1; }
    node="$(node_on "$port")"
    kill -KILL "$(cat "$dir/$node.pid")" 2>/dev/null || true
    rm -f "$dir/$node.pid"
    echo "$node" >"$dir/down"
    for _ in $(seq 1 300); do
      now="$(current_primary_port || true)"
      if [ -n "$now" ] && [ "$now" != "$port" ]; then exit 0; fi
      sleep 0.1
    done
    echo "redis/sentinel.sh: the sentinels did not promote a replica within 30 s of killing the primary on $port" >&2
    exit 1
    ;;
  rejoin)
    [ -f "$dir/down" ] || exit 0
    node="$(cat "$dir/down")"
    port="$primary_port"; [ "$node" = replica ] && port="$replica_port"
    now="$(current_primary_port)" || { echo "redis/sentinel.sh: no sentinel names a primary" >&2; exit 1; }
    run_node "$node" "$port" --replicaof 127.0.0.1 "$now"
    # Back in the topology: a replica with its link up, or the primary, should the sentinels have
    # failed over to it meanwhile (the node they had promoted went down in turn).
    wait_for "$node back as a replica or as the sentinels' primary" "$dir/$node.pid" rejoined "$node" "$port"
    rm -f "$dir/down"
    ;;
  start)
    mkdir -p "$dir"
    run_node primary "$primary_port"
    upstream="${SHEDLOCK_SENTINEL_RELAY_PORT:-$primary_port}"
    run_node replica "$replica_port" --replicaof 127.0.0.1 "$upstream"
    wait_for "replication" "$dir/replica.pid" sh -c "REDISCLI_AUTH=$password redis-cli -h 127.0.0.1 -p $replica_port --no-auth-warning info replication | grep -q 'master_link_status:up'"
    for i in 0 1 2; do run_sentinel "$i" "${sentinel_ports[$i]}"; done
    for i in 0 1 2; do wait_for "sentinel on ${sentinel_ports[$i]}" "$dir/sentinel$i.pid" replica_known "${sentinel_ports[$i]}"; done
    hosts="127.0.0.1:${sentinel_ports[0]},127.0.0.1:${sentinel_ports[1]},127.0.0.1:${sentinel_ports[2]}"
    echo "export SHEDLOCK_TEST_SENTINEL_URI='redis-sentinel://:$password@$hosts/$master?sentinel_password=$sentinel_password'"
    echo "export SHEDLOCK_TEST_SENTINEL_PRIMARY_PORT='$primary_port'"
    echo "export SHEDLOCK_TEST_SENTINEL_REPLICA_PORT='$replica_port'"
    echo "export SHEDLOCK_TEST_SENTINEL_PORTS='${sentinel_ports[*]}'"
    echo "export SHEDLOCK_TEST_SENTINEL_DIR='$dir'"
    ;;
  stop)
    for name in sentinel0 sentinel1 sentinel2 replica primary; do
      stop_pid "$dir/$name.pid"
      stop_pid "$dir/$name.pid.new"  # a node whose start this script did not see through
    done
    ;;
  *) echo "redis/sentinel.sh: unknown command $cmd" >&2; exit 2 ;;
esac
