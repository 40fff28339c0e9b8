#!/usr/bin/env bash
# Small requests over HTTP: the request rate of a Shisen-Sho solve (18 x 8
# board, string rows, one query) against GET /healthz on the same server,
# with the solve run inline on the async worker and on the blocking pool.
# Loopback only; each wrk run is bounded by -d.
#   bench/http_small.sh [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
cargo build --release --quiet --bin linkpath
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# The standard deal: 36 tile types, 4 of each, on 18 x 8, from a fixed seed.
python3 - "$work/body.json" <<'PY'
import json, random, sys
types = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
tiles = [t for t in types for _ in range(4)]
random.Random(1175).shuffle(tiles)
rows = ["".join(tiles[r * 18:(r + 1) * 18]) for r in range(8)]
first = rows[0][0]
at = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == first]
body = {"board": rows, "rules": "shisen-sho", "queries": [{"from": list(at[0]), "to": list(at[-1])}]}
open(sys.argv[1], "w").write(json.dumps(body))
PY
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open("$work/body.json"):read("*a")
LUA

port=18$((RANDOM % 900 + 100))
run() { # label inline_max_bytes
  LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_INLINE_MAX_BYTES=$2 RUST_LOG=warn \
    target/release/linkpath serve >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 50); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
  curl -sf -H 'content-type: application/json' -d @"$work/body.json" "127.0.0.1:$port/v1/solve" >/dev/null
  local health solve
  health=$(wrk -t2 -c32 -d"${secs}s" --latency "http://127.0.0.1:$port/healthz" | awk '/Requests\/sec/ {print $2}')
  solve=$(wrk -t2 -c32 -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:$port/v1/solve" \
    | tee "$work/$1.txt" | awk '/Requests\/sec/ {print $2}')
  local p99 non2xx
  p99=$(awk '/ 99%/ {print $2}' "$work/$1.txt")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$1.txt")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  printf '%-14s healthz %9s req/s   solve %9s req/s   ratio %4.2f   solve p99 %8s   non-2xx %s\n' \
    "$1" "$health" "$solve" "$(echo "$solve / $health" | bc -l)" "$p99" "${non2xx:-0}"
}
echo "wrk -t2 -c32 -d${secs}s on 127.0.0.1, $(nproc) cores"
run inline 4096
run blocking-pool 0
