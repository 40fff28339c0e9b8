#!/usr/bin/env bash
# Every benchmark of BENCHMARKS.md's targets in one run, on this
# machine, each against its baseline measured in the same run:
#   bench/judge.sh       judge formats as processes vs the parse-only floor,
#                        the contestant's BFS and the plain curling DFS
#   bench/http_small.sh  18 x 8 Shisen-Sho solves vs GET /healthz (wrk)
#   bench/http_big.sh    million-cell bodies over HTTP vs `linkpath solve`
#                        and vs serde_json parsing the same body
#   bench/memory.sh      peak RSS under 16 concurrent million-cell requests
#   cargo bench --bench engine   the engine alone (criterion, crates/engine)
# Held games have scripts of their own, not run here (BENCHMARKS.md, "Held
# games" and "Players"): bench/games.sh (a move against /v1/play, file
# against memory store), bench/replicas.sh (the file store against Redis,
# one replica and two behind nginx, and the cost of 100 event streams) and
# bench/players.sh (a signed-in move against an anonymous one, sign-ups).
# Needs what the README names: cargo, python3, curl and wrk. Loopback only;
# every load run is bounded in time.
#   bench/run.sh [REPORT]   (default target/bench-report.md)
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-target/bench-report.md}
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
cargo build --release --locked --bin linkpath
export LINKPATH_BIN=target/release/linkpath
mkdir -p "$(dirname "$report")"
{
    echo "# linkpath benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo
    bench/judge.sh 5
    echo
    bench/http_small.sh
    echo
    bench/http_big.sh 5
    echo
    bench/memory.sh 3
    echo
    echo '### the same with jemalloc giving pages back after one second (README)'
    _RJEM_MALLOC_CONF=dirty_decay_ms:1000 bench/memory.sh 3
    echo
    echo '## cargo bench --bench engine'
    echo '```'
    cargo bench --bench engine 2>&1 | grep -E '^engine/|time:'
    echo '```'
} | tee "$report"
echo "report written to $report" >&2
