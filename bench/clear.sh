#!/usr/bin/env bash
# /v1/clear's search and /v1/deal's difficulty on fixed seeds, as
# BENCHMARKS.md records them:
#   bench/clear.sh clear [SET ...] [--boards N] [--off IDEA ...]
#       decided share, median and p90 time and states per board set
#       (crates/engine/examples/clear_table.rs; no sets named: all six)
#   bench/clear.sh deal [--deals N]
#       moves open and random-playout clear rate of easy / medium / hard
#       deals against random boards the solver finds solvable
#       (crates/engine/examples/deal_table.rs)
#   bench/clear.sh http [REQUESTS]
#       /v1/deal with difficulty hard through the release binary: median
#       and slowest answer for 18 x 8 and 30 x 16 (default 21 requests)
# Runs from the project root; one board at a time, so on a shared machine
# the states columns are the figures to compare.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-clear}
shift || true
case $what in
  clear) cargo run --release --locked --quiet --example clear_table -- "$@" ;;
  deal) cargo run --release --locked --quiet --example deal_table -- "$@" ;;
  http)
    requests=${1:-21}
    source bench/common.sh
    linkpath_binary
    scratch_space
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    LINKPATH_LISTEN=127.0.0.1:$port RUST_LOG=warn "$bin" serve >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    echo "| deal | difficulty | requests | median | slowest |"
    echo "|---|---|---|---|---|"
    for shape in "18 8 36" "30 16 120"; do
      read -r w h types <<<"$shape"
      for difficulty in easy hard; do
        : >"$work/times"
        for seed in $(seq "$requests"); do
          body="{\"width\": $w, \"height\": $h, \"types\": $types, \"rules\": \"shisen-sho\", \"encoding\": \"numbers\", \"difficulty\": \"$difficulty\", \"seed\": $seed}"
          curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "127.0.0.1:$port/v1/deal" \
            -H 'content-type: application/json' -d "$body" >>"$work/times"
        done
        if grep -qv '^200 ' "$work/times"; then echo "a deal failed:" >&2; cat "$work/times" >&2; exit 1; fi
        sort -n -k2 "$work/times" | awk -v w="$w" -v h="$h" -v t="$types" -v d="$difficulty" \
          '{ t_[NR] = $2 } END { printf "| %s x %s, %s types x 4 | %s | %d | %.1f ms | %.1f ms |\n", w, h, t, d, NR, t_[int((NR + 1) / 2)] * 1000, t_[NR] * 1000 }'
      done
    done
    ;;
  *) echo "usage: bench/clear.sh clear|deal|http [ARGS]" >&2; exit 2 ;;
esac
