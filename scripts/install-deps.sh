#!/usr/bin/env bash
# Installs the Debian packages shedlock-cpp needs. Two sets:
#   scripts/install-deps.sh          everything (scripts/test.sh): build every component, run every
#                                    test, build the Debian packages
#   scripts/install-deps.sh --demo   what scripts/demo.sh builds and runs: the compiler, Boost,
#                                    date/tz and SQLite. A new user's first command should not
#                                    wait minutes for Chromium, Prometheus and three servers.
#   --list                           print the set's packages, one a line, and install nothing
# Beyond the demo's, the full set has: the CLI's and the config file's libraries (CLI11, toml++)
# and Catch2; dpkg-dev and file to build our Debian packages (man-db renders the manual page);
# faketime gives the chaos suite its client clock faults; chromium renders `shedlock bench --svg`
# and the status page in end-to-end tests; prometheus (promtool and the server) and curl test the
# daemon's /metrics and alert rules (tests/observability); procps (pgrep) finds a killed daemon's
# children in tests/observability/stopped_reporting_test.sh. Each provider lists its own client
# library and server in providers/<name>/debian-packages (the demo takes SQLite's only).
# tests/install_deps_sets.sh checks both sets. Quiet and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

set_name=full
list_only=0
for arg in "$@"; do
  case "$arg" in
    --demo) set_name=demo ;;
    --list) list_only=1 ;;
    *) echo "install-deps.sh: unknown option \"$arg\"; use --demo (the demo's packages only) and/or --list" >&2
       exit 64 ;;
  esac
done

provider_packages() {  # the packages of providers/<name>/debian-packages for each name given
  for name in "$@"; do grep -v '^#' "providers/$name/debian-packages"; done
}

# shellcheck disable=SC2207  # package names have no spaces
packages=(
  cmake ninja-build g++ pkg-config
  libboost-dev libhowardhinnant-date-dev tzdata
  $(provider_packages sqlite)
)
if [ "$set_name" = full ]; then
  all_providers=()
  for list in providers/*/debian-packages; do all_providers+=("$(basename "$(dirname "$list")")"); done
  # shellcheck disable=SC2207
  packages+=(
    catch2 libcli11-dev libtomlplusplus-dev
    openssl
    dpkg-dev file man-db
    faketime
    prometheus chromium curl procps
    python3 iproute2  # the test scripts' free_port helper; `ss` in a server script's failed-start report
    $(provider_packages "${all_providers[@]}")
  )
fi
if [ $list_only -eq 1 ]; then
  printf '%s\n' "${packages[@]}" | awk '!seen[$0]++'
  exit 0
fi

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
