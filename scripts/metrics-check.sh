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

fail() { echo "metrics-check: FAILED: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

if ! command -v promtool >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  [ -z "$made_policy" ] || $sudo rm -f /usr/sbin/policy-rc.d
fi
promtool --version 2>&1 | head -n 1

bin=${LINKPATH_BIN:-target/release/linkpath}
if [ -z "${LINKPATH_BIN:-}" ]; then
  cargo build --release --locked --bin linkpath
fi
[ -x "$bin" ] || fail "no executable at $bin"

tmp=$(mktemp -d)
pid=""
cleanup() {
  local status=$?
  [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true
  [ -z "$pid" ] || wait "$pid" 2>/dev/null || true
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The defaults, whatever this shell has set, with games in memory.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^LINKPATH_' || true)
"$bin" serve --listen "127.0.0.1:$port" --store memory >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/server.log" >&2; fail "the server exited"; }
  sleep 0.1
done

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

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" = 0 ] || fail "the server exited $status on SIGTERM"
ok "the server exited 0 on SIGTERM"
