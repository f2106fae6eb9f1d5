#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with Clang 14 under AddressSanitizer and
# UndefinedBehaviorSanitizer (build/fuzz) and runs each for SHEDLOCK_FUZZ_SECONDS on a scratch
# copy of its seed corpus, two at a time. Prints one table (target, executions, exec/s, result)
# and exits 1 if any target crashed, leaked, timed out or ran out of memory, naming the
# reproducer. The repository is never written to: grown corpora stay in the work directory.
#
#   scripts/fuzz.sh                                     # every target, 30 s each (CI: 15 s)
#   SHEDLOCK_FUZZ_SECONDS=600 scripts/fuzz.sh cron      # chosen targets, longer
#
# SHEDLOCK_FUZZ_JOBS (default 2) targets run at once; SHEDLOCK_FUZZ_WORK_DIR keeps corpora, logs
# and reproducers somewhere known (default: a temporary directory, removed when all passed).
# See docs/fuzzing.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

seconds="${SHEDLOCK_FUZZ_SECONDS:-30}"
jobs="${SHEDLOCK_FUZZ_JOBS:-2}"
build_dir="build/fuzz"
# Other builds may share the machine: one build at a time (runs need no lock).
build_lock="${SHEDLOCK_BUILD_LOCK:-/tmp/shedlock-build.lock}"

install_tools() {
  scripts/install-deps.sh
  local missing=()
  for p in clang-14 libfuzzer-14-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  # Only what the fuzz programs need: no CLI, benchmarks or examples.
  flock "$build_lock" env CC=clang-14 CXX=clang++-14 cmake -S . -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD="${SHEDLOCK_UNITY_BUILD:-ON}" -DSHEDLOCK_FUZZ=ON -DSHEDLOCK_SANITIZE=address,undefined \
    -DSHEDLOCK_BUILD_CLI=OFF -DSHEDLOCK_BUILD_BENCH=OFF -DSHEDLOCK_BUILD_EXAMPLES=OFF >/dev/null
  flock "$build_lock" cmake --build "$build_dir" -j2 --target fuzz_all
}

# run_target <target>: fuzzes one target in $work/<target>, leaving its log there.
run_target() {
  local target="$1" dir="$work/$1" options=()
  mkdir -p "$dir/corpus"
  cp tests/fuzz/corpus/"$target"/* "$dir/corpus/" 2>/dev/null || true
  [ -f "tests/fuzz/dictionaries/$target.dict" ] && options+=("-dict=tests/fuzz/dictionaries/$target.dict")
  UBSAN_OPTIONS=print_stacktrace=1 "$build_dir/tests/fuzz/fuzz_$target" "${options[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1 || true
}

# result <target>: "ok", or what went wrong and the reproducer libFuzzer wrote.
result() {
  local log="$work/$1/log" kind="ok" unit
  unit="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
  if grep -q "ERROR: LeakSanitizer" "$log"; then kind="leak"
  elif grep -q "ERROR: libFuzzer: timeout" "$log"; then kind="timeout"
  elif grep -q "ERROR: libFuzzer: out-of-memory" "$log"; then kind="out-of-memory"
  elif [ -n "$unit" ] || grep -q "ERROR:" "$log"; then kind="crash"
  elif ! grep -q "^Done [0-9]* runs" "$log"; then kind="did not finish"
  fi
  echo "$kind${unit:+ $unit}"
}

stat_of() { sed -n "s/^stat::$2: *//p" "$work/$1/log" | tail -n 1; }

install_tools
started=$SECONDS
build
built=$SECONDS

mapfile -t available <"$build_dir/tests/fuzz/fuzz_targets.txt"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${available[@]}")
for t in "${targets[@]}"; do
  [[ " ${available[*]} " == *" $t "* ]] || { echo "no fuzz target \"$t\"; built: ${available[*]}" >&2; exit 2; }
done

work="${SHEDLOCK_FUZZ_WORK_DIR:-$(mktemp -d /tmp/shedlock-fuzz.XXXXXX)}"
mkdir -p "$work"
echo "fuzzing ${#targets[@]} targets for ${seconds} s each, $jobs at a time, in $work" >&2
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait

failed=0
failures=0
printf '%-20s %14s %10s  %s\n' target executions exec/s result
for t in "${targets[@]}"; do
  r="$(result "$t")"
  [ "${r%% *}" = ok ] || { failed=1; failures=$((failures + 1)); }
  printf '%-20s %14s %10s  %s\n' "$t" "$(stat_of "$t" number_of_executed_units)" \
    "$(stat_of "$t" average_exec_per_sec)" "$r"
done
echo "build $((built - started)) s, fuzzing $((SECONDS - built)) s" >&2
echo "fuzz: $((${#targets[@]} - failures)) passed, $failures failed"

if [ "$failed" -ne 0 ]; then
  echo "A target failed. Logs and reproducers are in $work; replay one with" >&2
  echo "  $build_dir/tests/fuzz/fuzz_<target> <reproducer>" >&2
  echo "then fix it and save the input under tests/fuzz/regressions/<target>/ (docs/fuzzing.md)." >&2
  exit 1
fi
[ -n "${SHEDLOCK_FUZZ_WORK_DIR:-}" ] || rm -rf "$work"
