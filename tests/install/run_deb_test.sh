#!/usr/bin/env bash
# ctest install_deb_packages: builds this build's Debian packages with cpack, checks what they
# hold, installs them with dpkg, uses what they installed (the CLI, the shipped config, the man
# page, the systemd unit, the CMake and pkg-config packages), purges them and checks that nothing
# is left. The packages are purged on every exit, failure included, so the machine ends as it
# began; the scratch dir stays behind only when the test failed, for a look at what went wrong.
#
#   run_deb_test.sh BUILD_DIR CONSUMER_SOURCE SCRATCH VERSION GENERATOR
set -euo pipefail
build_dir=$1 consumer_source=$2 scratch=$3 version=$4 generator=$5
packages=(shedlock libshedlock-dev)
# What the packages install outside their own directories; none of it may exist beforehand.
system_paths=(/usr/bin/shedlock /etc/shedlock /lib/systemd/system/shedlock.service /usr/include/shedlock)
installed=0

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
step() { echo "-- $* (at $(($(date +%s) - start)) s)"; }

# Only a machine without shedlock: dpkg -i would replace an installed copy and the purge would
# delete its configuration.
check_machine() {
  [ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
  local p status
  for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ -z "$status" ] || [ "$status" = not-installed ] || skip "package $p is on this machine ($status)"
  done
  for p in "${system_paths[@]}"; do
    [ ! -e "$p" ] || skip "$p exists on this machine"
  done
}

cleanup() {
  local status=$?
  if [ "$installed" = 1 ]; then
    dpkg --purge "${packages[@]}" >/dev/null 2>&1 || echo "WARNING: dpkg --purge ${packages[*]} failed" >&2
  fi
  [ "$status" -ne 0 ] || rm -rf "$scratch"
  exit "$status"
}

build_packages() {
  step "cpack"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  cpack --config "$build_dir/CPackConfig.cmake" -B "$scratch/cpack" >"$scratch/cpack.log" 2>&1 ||
    { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
  deb_cli=$(echo "$scratch"/cpack/shedlock_"$version"_*.deb)
  deb_dev=$(echo "$scratch"/cpack/libshedlock-dev_"$version"_*.deb)
  [ -f "$deb_cli" ] || fail "no shedlock_${version}_*.deb in $scratch/cpack"
  [ -f "$deb_dev" ] || fail "no libshedlock-dev_${version}_*.deb in $scratch/cpack"
}

# The paths of the files (not directories) in each DEB, as installed: /usr/bin/shedlock.
package_files() {
  local deb
  for deb in "$@"; do
    dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | { grep -v '/$' || true; }
  done
}

# expect_member DEB REGEX...: each extended regex matches a file of DEB.
expect_member() {
  local deb=$1 pattern
  shift
  package_files "$deb" >"$scratch/members"
  for pattern in "$@"; do
    grep -Eq "^${pattern}\$" "$scratch/members" || fail "$(basename "$deb") has no file matching $pattern"
  done
}

# expect_no_member DEB REGEX: no file of DEB matches (the packages do not overlap).
expect_no_member() {
  ! package_files "$1" | grep -Eq "$2" || fail "$(basename "$1") holds a file matching $2"
}

expect_field() {
  local value
  value=$(dpkg-deb -f "$1" "$2")
  echo "$value" | grep -Eq "$3" || fail "$(basename "$1") $2 is \"$value\", expected to match $3"
}

check_contents() {
  step "package contents"
  expect_member "$deb_cli" /usr/bin/shedlock '/usr/share/man/man1/shedlock\.1(\.gz)?' \
    /etc/shedlock/shedlock.toml /lib/systemd/system/shedlock.service \
    '/usr/lib/(.+/)?shedlock/providers/sqlite\.so' '/usr/lib/(.+/)?shedlock/cli/config\.so' \
    '/usr/lib/(.+/)?shedlock/libshedlock-core\.so\.[0-9]+'
  # The CLI's only libraries are its modules (providers, and the config module) and the private
  # shared core they and the program link (issue 22); headers and archives are the -dev package's.
  if package_files "$deb_cli" | grep -E '^/usr/(include|lib)/' |
     grep -Evq '^/usr/lib/(.+/)?shedlock/((providers/[a-z]+|cli/config)\.so|libshedlock-core\.so\.[0-9]+)$'; then
    fail "$(basename "$deb_cli") holds files under /usr/include or /usr/lib other than its modules"
  fi
  expect_member "$deb_dev" /usr/include/shedlock/lock_provider.hpp \
    /usr/include/shedlock/providers/sqlite_lock_provider.hpp /usr/include/shedlock/scheduler.hpp \
    '/usr/lib/(.+/)?libshedlock_core\.a' '/usr/lib/(.+/)?libshedlock_sqlite\.a' \
    '/usr/lib/(.+/)?cmake/shedlock/shedlockConfig\.cmake' \
    '/usr/lib/(.+/)?cmake/shedlock/shedlockConfigVersion\.cmake' \
    '/usr/lib/(.+/)?cmake/shedlock/shedlock-sqlite-targets\.cmake' \
    '/usr/lib/(.+/)?pkgconfig/shedlock-core\.pc' '/usr/lib/(.+/)?pkgconfig/shedlock-sqlite\.pc'
  expect_no_member "$deb_dev" '^/(usr/bin|etc)/'
  expect_field "$deb_cli" Version "^${version//./\\.}\$"
  expect_field "$deb_dev" Version "^${version//./\\.}\$"
  expect_field "$deb_cli" Depends 'libc6'          # dpkg-shlibdeps ran
  expect_field "$deb_cli" Depends 'libsqlite3'     # ... on the provider modules too
  expect_field "$deb_dev" Depends 'libsqlitecpp-dev'
  dpkg-deb -I "$deb_cli" conffiles | grep -qx /etc/shedlock/shedlock.toml ||
    fail "/etc/shedlock/shedlock.toml is not a conffile of $(basename "$deb_cli")"
}

install_packages() {
  step "dpkg -i"
  installed=1
  dpkg -i "$deb_dev" "$deb_cli" >"$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log" >&2; fail "dpkg -i failed"; }
}

check_cli() {
  step "installed shedlock"
  local out db="$scratch/l.db"
  out=$(/usr/bin/shedlock --version)
  [ "$out" = "shedlock $version" ] || fail "shedlock --version printed \"$out\", expected \"shedlock $version\""
  shedlock run -p "sqlite://$db?create_schema=true" -n t --at-most 1m -- true ||
    fail "shedlock run exited with $?"
  shedlock locks -p "sqlite://$db" --json | grep -q '"t"' || fail "shedlock locks does not list lock t"
  shedlock daemon -c /etc/shedlock/shedlock.toml --dry-run >/dev/null ||
    fail "the shipped /etc/shedlock/shedlock.toml is refused (exit $?)"
}

# The page as packaged (extracted, since a minimal image may tell dpkg to skip /usr/share/man).
check_man_page() {
  step "man page"
  if ! command -v man >/dev/null; then
    echo "   man is not installed: man page rendering not checked"
    return
  fi
  dpkg-deb -x "$deb_cli" "$scratch/extracted"
  local page warnings
  page=$(echo "$scratch"/extracted/usr/share/man/man1/shedlock.1*)
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >"$scratch/man.txt") ||
    fail "man -l $page failed: $warnings"
  [ -z "$warnings" ] || fail "man -l $page warns: $warnings"
  grep -q "shedlock daemon" "$scratch/man.txt" || fail "the rendered man page lacks \"shedlock daemon\""
}

check_unit() {
  step "systemd unit"
  if ! command -v systemd-analyze >/dev/null; then
    echo "   systemd-analyze is not installed: unit not verified"
    return
  fi
  local out
  # verify reports most mistakes (an unknown KillMode, say) as warnings with exit status 0.
  out=$(systemd-analyze verify /lib/systemd/system/shedlock.service 2>&1) ||
    fail "systemd-analyze verify failed: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
}

# The out-of-tree consumer of tests/install, found through the default search path only.
check_cmake_consumer() {
  step "find_package consumer"
  local dir="$scratch/consumer"
  cmake -S "$consumer_source" -B "$dir" -G "$generator" -DCMAKE_BUILD_TYPE=Release >"$scratch/consumer.log" 2>&1 ||
    { cat "$scratch/consumer.log" >&2; fail "configuring the consumer failed"; }
  grep -Eq '^shedlock_DIR:PATH=/usr/lib/(.+/)?cmake/shedlock$' "$dir/CMakeCache.txt" ||
    fail "the consumer did not find the installed package: $(grep '^shedlock_DIR' "$dir/CMakeCache.txt")"
  cmake --build "$dir" -j2 >>"$scratch/consumer.log" 2>&1 || { cat "$scratch/consumer.log" >&2; fail "building the consumer failed"; }
  "$dir/consumer" "$dir/consumer.db" || fail "the consumer exited with $?"
}

# The locks-only consumer again, compiled with nothing but pkg-config's flags.
check_pkg_config_consumer() {
  step "pkg-config consumer"
  local flags
  flags=$(pkg-config --cflags --libs shedlock-sqlite) || fail "pkg-config shedlock-sqlite failed"
  # shellcheck disable=SC2086 # the flags are words
  c++ -std=c++20 -o "$scratch/pc_consumer" "$consumer_source/locks_main.cpp" $flags ||
    fail "compiling against pkg-config shedlock-sqlite failed (flags: $flags)"
  "$scratch/pc_consumer" "$scratch/pc_consumer.db" || fail "the pkg-config consumer exited with $?"
}

# Every file the two packages hold must be gone after the purge, and the directories they made.
remove_packages() {
  step "dpkg --purge"
  dpkg --purge "${packages[@]}" >"$scratch/dpkg.log" 2>&1 || { cat "$scratch/dpkg.log" >&2; fail "dpkg --purge failed"; }
  installed=0
  local path
  for path in "${system_paths[@]}" $(package_files "$deb_cli" "$deb_dev"); do
    [ ! -e "$path" ] || fail "$path is still there after dpkg --purge"
  done
  hash -r  # bash remembers where it found shedlock before
  ! command -v shedlock >/dev/null || fail "shedlock is still on PATH: $(command -v shedlock)"
}

start=$(date +%s)
check_machine
trap cleanup EXIT
# bash runs the EXIT trap on a signal only when the signal is trapped (ctest's timeout is SIGKILL,
# which nothing can catch; the next run then skips, naming the package left behind).
trap 'exit 130' INT
trap 'exit 143' TERM
build_packages
check_contents
install_packages
check_cli
check_man_page
check_unit
check_cmake_consumer
check_pkg_config_consumer
remove_packages
echo "Debian packages built, installed, used and purged in $(($(date +%s) - start)) s"
