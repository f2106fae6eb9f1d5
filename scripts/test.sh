#!/usr/bin/env bash
# The README's test command: installs dependencies, starts the database servers the tests need
# (PostgreSQL, MariaDB, Redis: throwaway data dirs, loopback, own ports), builds everything and
# runs all tests. Servers are stopped on exit, also when a test fails.
#
#   scripts/test.sh            # build in build/test, run every test
#   SHEDLOCK_SANITIZE=address,undefined scripts/test.sh   # the same under sanitizers (build/asan)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

scripts/install-deps.sh

sanitize="${SHEDLOCK_SANITIZE:-}"
build_dir="build/test"
[ -n "$sanitize" ] && build_dir="build/sanitize-${sanitize//,/-}"
servers_dir="$(mktemp -d /tmp/shedlock-servers.XXXXXX)"
started=()

# The shared servers' fixed ports (PostgreSQL 64329, its PgBouncers 64336-64338, MariaDB 63306,
# Redis 63798-63799, the cluster 63820-63825 with buses 61820-61825) lie above Linux's ephemeral
# range (32768-60999), where no client connection can hold one as its local port: inside it, a
# server could not bind a port some connection held ("bind(): Address already in use" with no
# listener, seen in CI). tests/server_ports_test.sh checks the running servers against the range.

stop_servers() {
  for s in "${started[@]}"; do providers/"$s"/server.sh stop "$servers_dir/$s" || true; done
  rm -rf "$servers_dir"
}
trap stop_servers EXIT

# Each provider whose tests need a server has providers/<name>/server.sh: start DIR starts it
# and prints `export VAR=...` lines that tell the tests where it is; stop DIR stops it by its PID.
for script in providers/*/server.sh; do
  [ -x "$script" ] || continue
  s="$(basename "$(dirname "$script")")"
  # Counted as started before it is: a start that fails half-way (PostgreSQL up, a PgBouncer not)
  # is still stopped on exit (every stop tolerates a server that never came up).
  started+=("$s")
  env_lines="$("$script" start "$servers_dir/$s")"
  eval "$env_lines"
done

# -g1 (line tables only) keeps file:line in backtraces and sanitizer reports and compiles and
# links much faster than full -g. The sanitizer passes run the unit, conformance and provider
# tests: the CLI, benchmarks and examples are not built, and -O1 builds about a third faster.
extra=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
[ -n "$sanitize" ] && extra=(-DSHEDLOCK_BUILD_BENCH=OFF -DSHEDLOCK_BUILD_EXAMPLES=OFF -DSHEDLOCK_BUILD_CLI=OFF
                             "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
# The chaos suite (docs/chaos.md) drives the CLI, which the sanitizer passes leave out. ON (not
# AUTO): a missing dependency fails the configure instead of dropping the CLI and its tests.
chaos=(-DSHEDLOCK_BUILD_CHAOS=ON -DSHEDLOCK_BUILD_CLI=ON)
[ -n "$sanitize" ] && chaos=()
# Every provider ON: a missing client library fails the configure loudly instead of dropping tests.
providers=(-DSHEDLOCK_PROVIDER_SQLITE=ON -DSHEDLOCK_PROVIDER_POSTGRES=ON -DSHEDLOCK_PROVIDER_MYSQL=ON -DSHEDLOCK_PROVIDER_REDIS=ON
           -DSHEDLOCK_BUILD_SCHEDULER=ON -DSHEDLOCK_BUILD_CONFIG=ON -DSHEDLOCK_BUILD_ASIO=ON)
# Unity build: CMake compiles each target's sources as a few combined files, so the heavy headers
# (Catch2, Boost.Asio, libpqxx, CLI11) are parsed once per target instead of once per file: about
# half the compile CPU time (fuzz targets: 110 s instead of 206 s of user+sys). A plain `cmake`
# build (what users and the install tests do) still compiles every file on its own. So no two
# files of one target may define the same name in an anonymous namespace.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHEDLOCK_SANITIZE="$sanitize" -DSHEDLOCK_WERROR=ON \
  -DCMAKE_UNITY_BUILD="${SHEDLOCK_UNITY_BUILD:-ON}" "${providers[@]}" "${chaos[@]}" "${extra[@]}" >/dev/null
# What to build and run:
# - plain: everything, tests/install's Debian package test included (as root it builds the .deb
#   files, installs them, uses them and purges them; it skips when not root);
# - address,undefined and thread: every program with threads or processes, providers on the real
#   servers included, but not the tests that restart servers, drive the CLI, inject chaos or install.
select=()
[ -n "$sanitize" ] && select=(-LE "serial|e2e|example|install|chaos")
# The model-based tests take 10,000 random steps per provider in the plain pass; under a
# sanitizer (5-10x slower) 3,000 more steps with other seeds look for memory and thread errors.
[ -n "$sanitize" ] && export SHEDLOCK_MODEL_STEPS="${SHEDLOCK_MODEL_STEPS:-3000}"
# A leak inside libpqxx itself on a broken connection (tests/sanitizer/lsan.supp says which).
[[ "$sanitize" == *address* ]] && export LSAN_OPTIONS="suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0"
# The 3-process SQLite scheduler test runs 38 s (>= 30 firings per task) in the plain pass; under a
# sanitizer 14 s (>= 10 firings) is enough to look for memory and thread errors in it.
[ -n "$sanitize" ] && export SHEDLOCK_MULTIPROCESS_SECONDS="${SHEDLOCK_MULTIPROCESS_SECONDS:-14}"
cmake --build "$build_dir" -j2
ctest --test-dir "$build_dir" --output-on-failure -j2 "${select[@]}" ${CTEST_ARGS:-}
# Lanes a provider adds in its own folder (providers/<name>/lanes.sh BUILD_DIR): its tests once
# more in another topology (PostgreSQL: through PgBouncer). The plain pass only: the sanitizer
# passes run each provider's own topology tests (postgres_pooler_test), not the whole suite again.
if [ -z "$sanitize" ] && [ -z "${CTEST_ARGS:-}" ]; then
  for lanes in providers/*/lanes.sh; do
    if [ -x "$lanes" ]; then "$lanes" "$build_dir"; fi
  done
fi
