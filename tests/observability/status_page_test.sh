#!/usr/bin/env bash
# The daemon's status page in headless Chromium: the rendered DOM lists every task (1,000 of
# them) with its last outcome, and a screenshot is kept under the build dir as a CI artefact.
# Then a second daemon (instance "beta") on the same SQLite file: the cluster panel of a task
# (/?task=hello) lists the runs of both processes; a second screenshot shows it.
# Usage: status_page_test.sh <shedlock binary> <tests/observability> <work dir>
set -euo pipefail
SHEDLOCK=$1 TESTS=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
source "$TESTS/daemon_http.sh"
beta_pid=""
stop_both() { stop_daemon; if [ -n "$beta_pid" ]; then kill "$beta_pid" 2>/dev/null || true; wait "$beta_pid" 2>/dev/null || true; fi; }
trap stop_both EXIT

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

# screenshot <url> <file> <height>: a PNG of the page, kept as a CI artefact (and not blank).
screenshot() {
  timeout 120 "${browser[@]}" --hide-scrollbars --window-size=1400,"$3" --screenshot="$WORK/$2" "$1" 2>>"$WORK/chromium.log"
  local size
  size=$(stat -c %s "$WORK/$2")
  echo "screenshot: $WORK/$2 ($size bytes)"
  [ "$size" -gt 10000 ]
}
screenshot "$url" status_page.png 900

# The cluster: a second process on the same file, its own instance name.
first_pid=$daemon_pid first_port=$daemon_port
sed 's/^\[shedlock\]$/[shedlock]\ninstance = "beta"/' "$WORK/daemon.toml" >"$WORK/beta.toml"
daemon_pid="" && start_daemon "$WORK/beta.toml" 19480 19489
beta_pid=$daemon_pid beta_port=$daemon_port daemon_pid=$first_pid daemon_port=$first_port
cluster_url="http://127.0.0.1:$beta_port/?task=hello"
for _ in $(seq 200); do
  curl -sf "$cluster_url" >"$WORK/cluster.html"
  instances=$(grep -o '<tr data-instance="[^"]*"' "$WORK/cluster.html" | sort -u | wc -l)
  [ "$instances" -ge 2 ] && break
  sleep 0.1
done
echo "instances in the cluster panel of hello: $instances"
[ "$instances" -ge 2 ]
timeout 120 "${browser[@]}" --dump-dom "$cluster_url" >"$WORK/cluster_dom.html" 2>>"$WORK/chromium.log"
grep -q '<section id="cluster" data-task="hello">' "$WORK/cluster_dom.html"
grep -q '<tr data-instance="beta" data-outcome="succeeded">' "$WORK/cluster_dom.html"
grep -q 'beta <small class="muted">(this)</small>' "$WORK/cluster_dom.html"
grep -Eq '<td class="took">[0-9]+ ms <small class="muted">PT[0-9.]+S</small></td>' "$WORK/cluster_dom.html"
screenshot "$cluster_url" cluster_panel.png 700
