#!/usr/bin/env bash
# /metrics as Prometheus reads it: starts `linkpath serve` on a free
# loopback port, sends it one solve, scrapes /metrics and runs
# `promtool check metrics` on the scrape (the exposition format and
# Prometheus' naming lints), then checks that the build and process series
# are there. Exits non-zero on any finding, or if the server does not exit
# 0 on SIGTERM.
#
#   scripts/metrics-check.sh                  # builds the binary first
#   LINKPATH_BIN=target/x86_64-unknown-linux-gnu/release/linkpath scripts/metrics-check.sh
#
# promtool comes from Debian's prometheus package, installed when missing
# without letting the package start a Prometheus server. Only 127.0.0.1 is
# sent traffic; the server it started is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

command -v promtool >/dev/null || apt_install prometheus
promtool --version 2>&1 | head -n 1

bin=${LINKPATH_BIN:-target/release/linkpath}
if [ -z "${LINKPATH_BIN:-}" ]; then
  cargo build --release --locked --bin linkpath
fi
[ -x "$bin" ] || fail "no executable at $bin"

tmp=$(mktemp -d)
clean_up_on_exit "$tmp"

# The defaults, with games in memory.
linkpath_defaults
start_replica "$tmp/server.log" --store memory
port=$replica_port

# One solve, so the histograms hold a sample and not only zeros.
curl -sf -o /dev/null -H 'content-type: application/json' \
  -d '{"board": ["XX"], "rules": "mahjong", "queries": [{"from": [0, 0], "to": [1, 0]}]}' \
  "http://127.0.0.1:$port/v1/solve" || fail "the solve was not answered 200"
curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/scrape" || fail "/metrics did not answer 200"

promtool check metrics <"$tmp/scrape" || fail "promtool check metrics found problems (above)"
families=$(grep -c '^# TYPE ' "$tmp/scrape")
samples=$(grep -vc '^#' "$tmp/scrape")
ok "promtool check metrics: clean, $families families, $samples samples"

for name in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes \
  process_open_fds process_max_fds process_start_time_seconds process_threads; do
  grep -qE "^$name [0-9]" "$tmp/scrape" || fail "no $name in the scrape"
done
ok "process series: $(grep -oE '^process_[a-z_]+' "$tmp/scrape" | sort | tr '\n' ' ')"
info=$(grep -E '^linkpath_build_info\{' "$tmp/scrape") || fail "no linkpath_build_info in the scrape"
grep -qE '^linkpath_build_info\{version="[^"]+",commit="[^"]+"\} 1$' <<<"$info" \
  || fail "linkpath_build_info is not 1 with a version and a commit: $info"
ok "$info"

stop_cleanly "$replica_pid" "the server"
ok "the server exited 0 on SIGTERM"
