#!/usr/bin/env bash
# The daemon's /metrics as Prometheus sees it: `promtool check metrics` accepts the real output, a
# real Prometheus server (own port, own data dir under the build dir) scrapes the daemon and a
# query returns the task counters; the alert rules of docs/observability.md pass
# `promtool check rules` and their unit tests (`promtool test rules`).
# Usage: prometheus_test.sh <shedlock binary> <docs/observability.md> <tests/observability> <work dir>
set -euo pipefail
SHEDLOCK=$1 DOC=$2 TESTS=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK"
source "$TESTS/daemon_http.sh"
prom_pid=""
cleanup() {
  stop_daemon
  if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null || true; wait "$prom_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

echo "== alert rules"
awk '/^## Alert rules/{a=1} a && /^```yaml/{f=1; next} f && /^```/{exit} f' "$DOC" >"$WORK/rules.yml"
grep -q ShedlockTaskNoRecentSuccess "$WORK/rules.yml"
promtool check rules "$WORK/rules.yml"
cp "$TESTS/alert_rules_test.yml" "$WORK/"
promtool test rules "$WORK/alert_rules_test.yml"

echo "== promtool check metrics on the daemon's /metrics"
write_config "$WORK/daemon.toml" "hello:PT1S:/bin/true" "oops:PT1S:/bin/false"
# A lock name rendered per second: its series carry the template, never a rendered name.
printf '[tasks.tpl]\nfixed_rate = "PT0.3S"\nlock_name = "tpl-{datetime}"\ncommand = ["/bin/true"]\n' >>"$WORK/daemon.toml"
start_daemon "$WORK/daemon.toml" 19460 19469
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$daemon_port/metrics" >"$WORK/metrics.txt"
  grep -q 'shedlock_task_runs_total{task="oops",outcome="failed"} [1-9]' "$WORK/metrics.txt" &&
    grep -qE 'shedlock_lock_attempts_total\{lock="tpl-\{datetime\}",outcome="acquired"\} ([4-9]|[1-9][0-9]+)$' "$WORK/metrics.txt" && break
  sleep 0.1
done
grep -q 'shedlock_task_runs_total{task="hello",outcome="succeeded"} [1-9]' "$WORK/metrics.txt"
grep -qE 'shedlock_lock_attempts_total\{lock="tpl-\{datetime\}",outcome="acquired"\} ([4-9]|[1-9][0-9]+)$' "$WORK/metrics.txt"
if grep 'lock="tpl-[0-9]' "$WORK/metrics.txt"; then echo "a series labelled by a rendered lock name" >&2; exit 1; fi
promtool check metrics <"$WORK/metrics.txt"

echo "== a real Prometheus scrapes the daemon"
cat >"$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: shedlock
    static_configs:
      - targets: ["127.0.0.1:$daemon_port"]
YML
prom_port=""
for ((port = 19460; port <= 19469; port++)); do
  [ "$port" = "$daemon_port" ] && continue
  prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prometheus-data" \
    --web.listen-address="127.0.0.1:$port" >"$WORK/prometheus.log" 2>&1 &
  prom_pid=$!
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
    kill -0 "$prom_pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$prom_pid" 2>/dev/null && curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null; then prom_port=$port; break; fi
  wait "$prom_pid" 2>/dev/null || true
  prom_pid=""
done
[ -n "$prom_port" ] || { echo "prometheus did not start on a free port:" >&2; cat "$WORK/prometheus.log" >&2; exit 1; }
query='shedlock_task_runs_total{job="shedlock",task="hello",outcome="succeeded"}'
for _ in $(seq 150); do
  curl -sf -G "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$query" >"$WORK/query.json" || true
  grep -q '"value":\[[0-9.]*,"[1-9][0-9]*"\]' "$WORK/query.json" && break
  sleep 0.2
done
cat "$WORK/query.json"; echo
grep -q '"task":"hello"' "$WORK/query.json"
grep -q '"value":\[[0-9.]*,"[1-9][0-9]*"\]' "$WORK/query.json"
curl -sf "http://127.0.0.1:$prom_port/api/v1/targets" | grep -q '"health":"up"'
echo "prometheus scraped the daemon: OK"
