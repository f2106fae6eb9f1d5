#!/usr/bin/env bash
# Installs the Debian packages shedlock-cpp needs to build, test and run its demo, and to build
# and test its own Debian packages (dpkg-dev, file; man-db renders the manual page); faketime
# gives the chaos suite its client clock faults.
# Quiet and quick when everything is already there.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libboost-dev libsqlitecpp-dev libsqlite3-dev sqlite3 catch2
  libpqxx-dev libmariadb-dev libhiredis-dev
  libcli11-dev libtomlplusplus-dev libhowardhinnant-date-dev tzdata
  postgresql mariadb-server redis-server openssl
  dpkg-dev file man-db
  faketime
)

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
