#!/usr/bin/env bash
# Every providers/*/server.sh starts, serves and stops under a DIR deeper than a Unix socket's
# path limit (107 bytes). CI checks out under a longer path than a developer's tree, and a chaos
# lane's servers live in the build tree: PostgreSQL refused to start there ("could not create any
# Unix-domain sockets"), which failed the failover lanes in CI only. Each server gets free
# loopback ports; its printed URI is then used by `shedlock run`, and stop must leave nothing.
#
#   server_scripts_deep_dir_test.sh SOURCE_DIR SHEDLOCK_CLI
set -euo pipefail
root="${1:?usage: server_scripts_deep_dir_test.sh SOURCE_DIR SHEDLOCK_CLI}"
shedlock="${2:?usage: server_scripts_deep_dir_test.sh SOURCE_DIR SHEDLOCK_CLI}"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

base="$(mktemp -d /tmp/shedlock-deep.XXXXXX)"
chmod 755 "$base"
deep="$base/$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 40))"
mkdir -p "$deep"
chmod -R 755 "$base"
started=()
cleanup() {
  for b in "${started[@]}"; do "$root/providers/$b/server.sh" stop "$deep/$b" >/dev/null 2>&1 || true; done
  rm -rf "$base"
}
trap cleanup EXIT

export SHEDLOCK_POSTGRES_PORT="$(free_port)" SHEDLOCK_MARIADB_PORT="$(free_port)"
export SHEDLOCK_REDIS_PORT="$(free_port)" SHEDLOCK_REDIS_REPLICA_PORT="$(free_port)"
checked=0
for script in "$root"/providers/*/server.sh; do
  b="$(basename "$(dirname "$script")")"
  dir="$deep/$b"
  echo "== $b in a DIR of ${#dir} bytes"
  started+=("$b")
  exports="$("$script" start "$dir")" || { echo "FAIL: $b/server.sh start failed under $dir" >&2; exit 1; }
  uri="$(echo "$exports" | sed -n "s/^export SHEDLOCK_TEST_[A-Z]*_URI='\(.*\)'$/\1/p" | head -1)"
  [ -n "$uri" ] || { echo "FAIL: $b/server.sh printed no SHEDLOCK_TEST_*_URI" >&2; exit 1; }
  "$shedlock" schema apply -p "$uri" >/dev/null
  out="$("$shedlock" run -p "$uri" -n deep-dir-check --at-most PT1M -- echo ran)"
  [ "$out" = ran ] || { echo "FAIL: shedlock run on $b printed \"$out\"" >&2; exit 1; }
  # A socket the script had to place elsewhere (a short directory of its own) must go with it.
  own_socket=""; [ -f "$dir/socket" ] && own_socket="$(cat "$dir/socket")"
  "$script" stop "$dir"
  if [ -n "$own_socket" ] && [ -e "$own_socket" ]; then echo "FAIL: $b left $own_socket" >&2; exit 1; fi
  leftovers="$(ps -eo args | grep -F "$dir" | grep -v grep || true)"
  [ -z "$leftovers" ] || { echo "FAIL: $b left processes after stop: $leftovers" >&2; exit 1; }
  checked=$((checked + 1))
  echo "ok $b"
done
[ "$checked" -ge 3 ] || { echo "FAIL: checked $checked server scripts, expected at least 3" >&2; exit 1; }
echo "checked $checked server scripts under deep directories"
