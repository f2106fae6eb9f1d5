#!/usr/bin/env bash
# Runs one test program on a Redis Cluster of its own: starts ../cluster.sh in a temporary
# directory, exports its URI, runs the program with the remaining arguments, and stops every
# node by PID on exit (also when the program fails or a node was killed by the test).
#
#   cluster_test.sh PROGRAM [ARGS...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/shedlock-redis-cluster.XXXXXX")"
cleanup() { "$here/../cluster.sh" stop "$dir" || true; rm -rf "$dir"; }
trap cleanup EXIT
exports="$("$here/../cluster.sh" start "$dir")"  # a failed start ends the script here
eval "$exports"
"$@"
