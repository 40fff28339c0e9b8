#!/usr/bin/env bash
# Overload test on loopback: a release `linkpath serve` with few solver
# slots, wrk sending /v1/solve at many times what the slots can take, and
# meanwhile a probe of /healthz every 50 ms and the server's memory every
# second. Prints the status counts, wrk's connection errors and latencies,
# /healthz p50/p99/max, and RSS at the start, peak and end. Stops the server
# itself and exits non-zero if any answer was a 5xx other than 503, a probe
# of /healthz failed, or the server did not exit 0 on SIGTERM.
#
#   scripts/overload.sh                          # 30 s, 1 slot, 16 connections
#   DURATION=10 WORKERS=2 CONNECTIONS=32 scripts/overload.sh
#
# Only 127.0.0.1 is ever sent traffic. Installs wrk with apt-get if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${DURATION:-30}
workers=${WORKERS:-1}
connections=${CONNECTIONS:-16}
threads=${THREADS:-2}
tmp=$(mktemp -d)
log=target/overload-server.log

step() { printf '\n== %s\n' "$*"; }

step "wrk"
if ! command -v wrk >/dev/null; then
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi
wrk --version 2>&1 | head -1 || true

step "cargo build --release"
cargo build --release --locked

# A 200 x 200 Mahjong board, 30% tiles, 4 queries between tiles: about 20 ms
# of solving (release build, one core of the 2-core CI machine).
python3 - "$tmp/body.json" <<'EOF'
import json, random, sys
r = random.Random(5)
n = 200
board = [["X" if r.random() < 0.3 else " " for _ in range(n)] for _ in range(n)]
tiles = [(x, y) for y in range(n) for x in range(n) if board[y][x] == "X"]
queries = [{"from": list(r.choice(tiles)), "to": list(r.choice(tiles))} for _ in range(4)]
body = {"board": ["".join(row) for row in board], "rules": "mahjong",
        "queries": queries, "include_path": False}
json.dump(body, open(sys.argv[1], "w"))
EOF

cat >"$tmp/solve.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local file = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.body = file:read("*a")
file:close()

local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) counts = {} end
function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end
function done(summary, latency, requests)
  local total, statuses = {}, {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      total[status] = (total[status] or 0) + n
    end
  end
  for status in pairs(total) do table.insert(statuses, status) end
  table.sort(statuses)
  for _, status in ipairs(statuses) do
    io.write(string.format("status %d: %d\n", status, total[status]))
  end
  local e = summary.errors
  io.write(string.format("errors: connect %d, read %d, write %d, timeout %d\n",
    e.connect, e.read, e.write, e.timeout))
  io.write(string.format("requests %d in %.1f s: %.0f/s\n", summary.requests,
    summary.duration / 1e6, summary.requests / (summary.duration / 1e6)))
  io.write(string.format("solve latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3))
end
EOF

step "linkpath serve (LINKPATH_WORKERS=$workers)"
while read -r name; do unset "$name"; done < <(compgen -e | grep '^LINKPATH_' || true)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LINKPATH_WORKERS=$workers target/release/linkpath serve --store memory --listen "127.0.0.1:$port" \
  --shutdown-grace-ms 0 >"$log" 2>&1 &
server=$!
cleanup() {
  kill -TERM "$server" 2>/dev/null || true
  jobs -p | xargs -r kill 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.1
done
url="http://127.0.0.1:$port"
echo "listening on 127.0.0.1:$port; one solve alone:"
curl -s -o /dev/null -w '  %{http_code} in %{time_total} s\n' -H 'Content-Type: application/json' \
  --data-binary @"$tmp/body.json" "$url/v1/solve"

# p50/p99/max of the "code seconds" lines of /healthz probes in file $2.
healthz_summary() {
  sort -k2 -g "$2" | awk -v what="$1" '
    { t[NR] = $2 * 1000; if ($1 != "200") bad++ }
    END {
      printf "%s: %d probes, %d not 200, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
        what, NR, bad, t[int((NR + 1) * 0.50)], t[int((NR + 1) * 0.99)], t[NR]
      exit bad > 0
    }'
}
for _ in $(seq 50); do
  curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}\n' "$url/healthz" || echo "000 5"
  sleep 0.05
done >"$tmp/healthz-idle"
healthz_summary "healthz idle" "$tmp/healthz-idle"

rss() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$server/status"; }
rss_start=$(rss VmRSS)

step "wrk -t$threads -c$connections -d${duration}s POST /v1/solve, with /healthz and RSS sampled"
end=$((SECONDS + duration))
(
  while [ "$SECONDS" -lt "$end" ]; do
    curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}\n' "$url/healthz" || echo "000 5"
    sleep 0.05
  done
) >"$tmp/healthz" &
(
  while [ "$SECONDS" -lt "$end" ] && kill -0 "$server" 2>/dev/null; do
    rss VmRSS
    sleep 1
  done
) >"$tmp/rss" &
BODY_FILE="$tmp/body.json" timeout $((duration + 30)) \
  wrk -t"$threads" -c"$connections" -d"${duration}s" --timeout 10s -s "$tmp/solve.lua" \
  "$url/v1/solve" | tee "$tmp/wrk"
wait $(jobs -p | grep -vx "$server") 2>/dev/null || true

step "results"
status=0
grep -E '^status ' "$tmp/wrk" | while read -r _ code _; do
  case "$code" in 5*) [ "$code" = "503:" ] || echo "unexpected $code answers" ;; esac
done | tee "$tmp/bad"
[ -s "$tmp/bad" ] && status=1
healthz_summary "healthz under load" "$tmp/healthz" || status=1
sort -g "$tmp/rss" | awk -v start="$rss_start" -v hwm="$(rss VmHWM)" -v end="$(rss VmRSS)" '
  { peak = $1 }
  END { printf "RSS: start %.1f MiB, peak sampled %.1f MiB, end %.1f MiB, VmHWM %.1f MiB\n",
        start / 1024, peak / 1024, end / 1024, hwm / 1024 }'
curl -s "$url/metrics" | grep -E '^linkpath_(rejected_total|panics_total)' || true
kill -TERM "$server"
exit_code=0
wait "$server" || exit_code=$?
echo "linkpath exited $exit_code on SIGTERM"
[ "$exit_code" -eq 0 ] || status=1
echo "overload.sh: $([ "$status" -eq 0 ] && echo passed || echo FAILED)"
exit "$status"
