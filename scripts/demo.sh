#!/usr/bin/env bash
# The README's main command: installs dependencies, builds the demo and runs it on an embedded
# SQLite file: 3 instance processes run the same scheduled tasks; the run records must show
# every firing executed exactly once (the demo exits non-zero on any duplicate).
#   scripts/demo.sh [--seconds N] [--without-keep-alive]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-deps.sh --demo
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHEDLOCK_BUILD_TESTS=OFF -DSHEDLOCK_BUILD_BENCH=OFF >/dev/null
cmake --build build/demo -j2 --target scheduler_demo lock_race_demo
db="build/demo/shedlock-demo.db"
rm -f "$db" "$db-wal" "$db-shm"
exec build/demo/examples/scheduler_demo --db "$db" "$@"
