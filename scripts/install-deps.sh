#!/usr/bin/env bash
# Installs the Debian packages shedlock-cpp needs to build, test and run its demo, and to build
# and test its own Debian packages (dpkg-dev, file; man-db renders the manual page); faketime
# gives the chaos suite its client clock faults; chromium renders `shedlock bench --svg` and the
# status page in end-to-end tests; prometheus (promtool and the server) and curl test the
# daemon's /metrics and alert rules (tests/observability); procps (pgrep) finds a killed daemon's
# children in tests/observability/stopped_reporting_test.sh.
# Each provider lists its own client library and server in providers/<name>/debian-packages.
# Quiet and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ pkg-config
  libboost-dev catch2
  libcli11-dev libtomlplusplus-dev libhowardhinnant-date-dev tzdata
  openssl
  dpkg-dev file man-db
  faketime
  prometheus chromium curl procps
)
for list in providers/*/debian-packages; do
  # shellcheck disable=SC2207  # package names have no spaces
  packages+=($(grep -v '^#' "$list"))
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# Package installs must not start system services: our tests run their own servers.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
  "${sudo_cmd[@]}" chmod +x "$policy"
  made_policy=1
fi
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ $made_policy -eq 1 ] && "${sudo_cmd[@]}" rm -f "$policy"
exit 0
