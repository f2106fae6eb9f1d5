#!/usr/bin/env bash
# Runs the chaos suite by hand against servers of its own (never the shared test servers), then
# prints one table for every backend. See docs/chaos.md.
#
#   tests/chaos/run_chaos.sh                         # all four backends, 60 s each
#   tests/chaos/run_chaos.sh --seconds 600 redis     # one backend, longer
#   tests/chaos/run_chaos.sh --soak                  # hours each (see --help of chaos_suite)
#   tests/chaos/run_chaos.sh --async                 # the async lane: workers lock through shedlock::asio
#
# Arguments that start with -- go to every chaos_suite run; the others name backends.
# Environment: SHEDLOCK_CHAOS_BUILD (default build/chaos: a build configured with
# -DSHEDLOCK_BUILD_CHAOS=ON), SHEDLOCK_CHAOS_PORT_BASE (default 62000: PostgreSQL on +1, MariaDB
# on +2, Redis on +3 and its replica on +4).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SHEDLOCK_CHAOS_BUILD:-$root/build/chaos}"
suite="$build/tests/chaos/chaos_suite"
if [ ! -x "$suite" ]; then
  echo "run_chaos.sh: $suite is not built. The suite is opt-in:" >&2
  echo "  cmake -S $root -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHEDLOCK_BUILD_CHAOS=ON" >&2
  echo "  cmake --build $build --target chaos_suite" >&2
  exit 2
fi

backends=()
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --soak|--no-faults|--async) args+=("$1") ;;
    --*) args+=("$1" "$2"); shift ;;
    *) backends+=("$1") ;;
  esac
  shift
done
[ ${#backends[@]} -gt 0 ] || backends=(sqlite postgres mysql redis)

base="${SHEDLOCK_CHAOS_PORT_BASE:-62000}"
export SHEDLOCK_POSTGRES_PORT=$((base + 1)) SHEDLOCK_MARIADB_PORT=$((base + 2))
export SHEDLOCK_REDIS_PORT=$((base + 3)) SHEDLOCK_REDIS_REPLICA_PORT=$((base + 4))
work="$(mktemp -d /tmp/shedlock-chaos.XXXXXX)"
chmod a+x "$work"  # PostgreSQL runs as its own user when we are root
started=()
stop_servers() {
  for b in "${started[@]}"; do "$root/providers/$b/server.sh" stop "$work/$b" >/dev/null 2>&1 || true; done
}
trap stop_servers EXIT

# A backend is named after its provider folder; one that needs a server has a server.sh there.
for b in "${backends[@]}"; do
  if [ -x "$root/providers/$b/server.sh" ]; then
    eval "$("$root/providers/$b/server.sh" start "$work/$b")"
    started+=("$b")
  fi
done

table="$work/table.txt"
status=0
for b in "${backends[@]}"; do
  echo "== $b"
  "$suite" --backend "$b" --table-out "$table" --work-dir "$work/run-$b" "${args[@]}" || status=$?
done
echo
"$suite" --print-header
cat "$table"
echo "(work dirs with journals and logs: $work)"
exit "$status"
