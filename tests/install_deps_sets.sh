#!/usr/bin/env bash
# scripts/install-deps.sh: the demo installs what the demo needs (a new user's first command took
# 2 min 42 s installing Chromium, Prometheus and three database servers first), and the full set
# that scripts/test.sh installs still has everything the tests need.
#   tests/install_deps_sets.sh SOURCE_DIR
set -euo pipefail
cd "$1"
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }

demo="$(scripts/install-deps.sh --list --demo)"
full="$(scripts/install-deps.sh --list)"
echo "demo set: $(echo $demo)"
echo "full set: $(echo $full)"
has() { grep -qx -- "$2" <<<"$1"; }

for p in g++ cmake ninja-build libboost-dev libhowardhinnant-date-dev libsqlitecpp-dev libsqlite3-dev; do
  has "$demo" "$p" || fail "the demo set lacks $p (scheduler_demo needs it)"
done
for p in chromium prometheus faketime catch2 postgresql mariadb-server redis-server libpqxx-dev; do
  has "$demo" "$p" && fail "the demo set installs $p, which the demo does not use"
done
for p in $demo chromium prometheus curl procps faketime catch2 dpkg-dev libcli11-dev libtomlplusplus-dev; do
  has "$full" "$p" || fail "the full set (scripts/test.sh) lacks $p"
done
for list in providers/*/debian-packages; do
  for p in $(grep -v '^#' "$list"); do has "$full" "$p" || fail "the full set lacks $p ($list)"; done
done
grep -q '^scripts/install-deps.sh --demo$' scripts/demo.sh || fail "scripts/demo.sh does not install the demo set"
grep -q '^scripts/install-deps.sh$' scripts/test.sh || fail "scripts/test.sh does not install the full set"
[ "$failures" -eq 0 ] && echo "install-deps sets: ok"
exit $((failures > 0))
