#!/usr/bin/env bash
# The daemon's status page in headless Chromium: the rendered DOM lists every task (1,000 of
# them) with its last outcome, and a screenshot is kept under the build dir as a CI artefact.
# Usage: status_page_test.sh <shedlock binary> <tests/observability> <work dir>
set -euo pipefail
SHEDLOCK=$1 TESTS=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
source "$TESTS/daemon_http.sh"
trap stop_daemon EXIT

# Three tasks that run every second and 997 that wait for a yearly cron (no run yet).
write_config "$WORK/daemon.toml" "hello:PT1S:/bin/true" "oops:PT1S:/bin/false" "nightly_export:PT1S:/bin/true"
for i in $(seq -w 1 997); do
  printf '[tasks.report_%s]\ncron = "0 0 3 1 1 ?"\ncommand = ["/bin/true"]\n' "$i" >>"$WORK/daemon.toml"
done
start_daemon "$WORK/daemon.toml" 19470 19479
url="http://127.0.0.1:$daemon_port/"
for _ in $(seq 100); do
  curl -sf "$url" >"$WORK/page.html"
  [ "$(grep -c 'o-failed' "$WORK/page.html")" -ge 2 ] && grep -q 'class="badge last o-succeeded"' "$WORK/page.html" && break
  sleep 0.1
done

browser=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
         --user-data-dir="$WORK/chromium-profile")
timeout 120 "${browser[@]}" --dump-dom "$url" >"$WORK/dom.html" 2>"$WORK/chromium.log"
rows=$(grep -o '<tr data-task="[^"]*"' "$WORK/dom.html" | sort -u | wc -l)
echo "rows in the rendered DOM: $rows"
[ "$rows" -eq 1000 ]
# Each task's row names it and shows its last outcome.
row() { grep -o "<tr data-task=\"$1\">.*" "$WORK/dom.html" | head -1; }
row hello | grep -q '<span class="badge last o-succeeded">succeeded</span>'
row oops | grep -q '<span class="badge last o-failed">failed</span>'
row report_500 | grep -q '<span class="badge last o-none">none</span>'
row oops | grep -q '<span class="strip"><i class="o-failed"'
grep -q '1000 tasks' "$WORK/dom.html"

timeout 120 "${browser[@]}" --hide-scrollbars --window-size=1400,900 --screenshot="$WORK/status_page.png" "$url" \
  2>>"$WORK/chromium.log"
size=$(stat -c %s "$WORK/status_page.png")
echo "screenshot: $WORK/status_page.png ($size bytes)"
[ "$size" -gt 10000 ]
