#!/usr/bin/env bash
# The README's main command: installs dependencies, builds the demo, runs it on an embedded
# SQLite file (3 instance processes racing for one lock; each round must run exactly once).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/install-deps.sh
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHEDLOCK_BUILD_TESTS=OFF -DSHEDLOCK_BUILD_BENCH=OFF >/dev/null
cmake --build build/demo -j2 --target lock_race_demo
db="build/demo/shedlock-demo.db"
rm -f "$db" "$db-wal" "$db-shm"
exec build/demo/examples/lock_race_demo "$db" "${1:-10}"
