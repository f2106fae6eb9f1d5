# Sourced by the observability tests: starts `shedlock daemon --http` on the first free port of a
# range and stops it by PID on exit. Needs SHEDLOCK (the binary) and WORK (a scratch directory).

daemon_pid=""
daemon_port=""
stop_daemon() {
  if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
  daemon_pid=""
}

# start_daemon <config> <first port> <last port>: sets daemon_pid and daemon_port.
start_daemon() {
  local config=$1 port
  for ((port = $2; port <= $3; port++)); do
    : >"$WORK/daemon.log"
    "$SHEDLOCK" daemon -c "$config" --http "127.0.0.1:$port" >"$WORK/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 100); do
      grep -q -e "--http: serving" -e "--http: cannot" "$WORK/daemon.log" && break
      kill -0 "$daemon_pid" 2>/dev/null || break
      sleep 0.1
    done
    if grep -q -e "--http: serving" "$WORK/daemon.log"; then daemon_port=$port; return 0; fi
    stop_daemon  # port in use (another test, another program): try the next
  done
  echo "no free port in $2..$3 for the daemon; last log:" >&2
  cat "$WORK/daemon.log" >&2
  return 1
}

# write_config <file> <tasks...>: a SQLite daemon config whose tasks are "name:rate:command".
write_config() {
  local file=$1
  shift
  printf '[shedlock]\nprovider = "sqlite:%s/locks.db?create_schema=true"\ndefault_lock_at_most_for = "PT1M"\n' "$WORK" >"$file"
  local spec name rate cmd
  for spec in "$@"; do
    IFS=: read -r name rate cmd <<<"$spec"
    printf '[tasks.%s]\nfixed_rate = "%s"\ncommand = ["%s"]\n' "$name" "$rate" "$cmd" >>"$file"
  done
}
