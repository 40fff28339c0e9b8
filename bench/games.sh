#!/usr/bin/env bash
# Games held by the server, over HTTP: one move on an 18 x 8 Shisen-Sho game
# (POST /v1/games/{id}/moves) kept in the embedded redb store, each change
# synced to disk before it is answered (--store file:PATH), against the same
# move through stateless POST /v1/play (the board before that move, and the
# move), and against the same game moves with --store memory (what
# durability costs). First the rates at saturation (wrk -t2 -c32, 2xx only),
# then each one's latency at one fixed rate, half the durable move rate
# (each connection paced as bench/http_wrk.lua paces it).
#
# Goals:
#   durable moves/s (2xx only) >= 1000
#   durable move p50 and p99 <= 1.5 x /v1/play's, both at half the durable
#   move rate, with no non-2xx answers
#   reported, no goal: file-store moves/s against memory-store moves/s
#
# The moves: /v1/deal with a fixed seed answers a board and the 72 moves
# that clear it; the board before each move comes from /v1/play, once. A
# game created with the deal's fields, and one created on the deal's board,
# are played to the end with those moves as a check (bench/games_prep.py).
# Each wrk run starts a fresh server, on a fresh store file, and creates
# GAMES games on that board (not with the deal's fields: each such game
# deals again, about half a second of CPU here); each wrk thread plays its
# own share of them, move 0 of every game, then move 1 of every game, ...
# (bench/games_wrk.lua): two moves of one game are GAMES / THREADS requests
# apart, so one is answered before the next is sent. The /v1/play runs
# send the same moves in the same order. A 409 would mean two moves of one
# game overlapped, or a thread ran past its last move (counted as `past
# end`): the report shows every answer's status, from the server's metrics.
# GAMES games hold GAMES x 72 moves: 1500 last a 6 s run up to 18,000
# moves/s (the memory store makes about 7,000 on 2 busy cores); raise GAMES
# with the seconds.
#
# Loopback only; each wrk run is bounded by -d and stops by itself. The
# rates are taken in ROUNDS rounds alternating the three (file, /v1/play,
# memory) so that a change in the machine's load hits all of them; a ratio
# is the median of the rounds' ratios, a rate the median rate.
#   bench/games.sh [seconds per run, default 6]
# Env: LINKPATH_BIN (default: cargo build --release --locked, then
# target/release/linkpath), CONNS (32), THREADS (2), ROUNDS (3), GAMES
# (1500); the store is set for each run; other LINKPATH_* settings pass
# through to the server. LINKPATH_WORKERS is CONNS unless set: /v1/play
# takes a solver slot (a game move on a small board does not), and with
# the default, one slot a core, a 2-core server answers 503 to about 40% of
# the /v1/play requests even at half the durable move rate, so the baseline
# would time the refusals; LINKPATH_WORKERS=2 measures that default.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-6}
rounds=${ROUNDS:-3}
conns=${CONNS:-32}
threads=${THREADS:-2}
games=${GAMES:-1500}
workers=${LINKPATH_WORKERS:-$conns}
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
# shellcheck source=bench/common.sh
. bench/common.sh
linkpath_binary
lua=$PWD/bench/games_wrk.lua
prep=(python3 bench/games_prep.py)
scratch_space
# shellcheck source=bench/games_lib.sh
. bench/games_lib.sh

file_store=file:$work/games.redb
runs=()

# The moves, from a server of its own.
start_server memory
nmoves=$("${prep[@]}" deal "$port" "$work")
stop_server

echo "## bench/games.sh"
echo
echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg) (at start); store file on $(df -T "$work" | awk 'NR == 2 {print $2 " (" $1 ")"}')"
echo "- binary: $bin"
if [ -n "${LINKPATH_WORKERS:-}" ]; then why="as set"; else why="CONNS; the default would be one a core"; fi
echo "- server: LINKPATH_WORKERS=$workers ($why), RUST_LOG=warn, loopback; a fresh server, and store file, for each run"
echo "- moves: POST /v1/deal $(cat "$work/deal.json") and its clearing moves, checked on a game created with those fields and on one created on its board"
echo "- games: $games a run, created with $(cat "$work/create.json"), $nmoves moves each, split between wrk's $threads threads"
echo "- load: wrk -t$threads -c$conns -d${secs}s per run, $rounds rounds of (durable move, /v1/play, memory move)"
echo

# The rates at saturation.
fs=() ps=() ms_=() fp=() fm=()
for j in $(seq "$rounds"); do
  wrk_run "file$j" game "$file_store"
  wrk_run "play$j" play memory
  wrk_run "mem$j" game memory
  declare -n f=file${j}_rps2xx p=play${j}_rps2xx m=mem${j}_rps2xx
  fs+=("$f") ps+=("$p") ms_+=("$m") fp+=("$(echo "$f / $p" | bc -l)") fm+=("$(echo "$f / $m" | bc -l)")
  unset -n f p m
done
file_rate=$(printf '%.0f' "$(median "${fs[@]}")")
play_rate=$(printf '%.0f' "$(median "${ps[@]}")")
mem_rate=$(printf '%.0f' "$(median "${ms_[@]}")")
file_vs_play=$(printf '%.2f' "$(median "${fp[@]}")")
file_vs_mem=$(printf '%.2f' "$(median "${fm[@]}")")

# Latency at half the durable move rate, each of the three paced to it
# (games_lib.sh's `paced`).
target=$(echo "$file_rate / 2" | bc -l)
paced pfile game "$file_store" "$target"
paced pplay play memory "$target"
paced pmem game memory "$target"

ok_rate=$(echo "$file_rate >= 1000" | bc)
rate_bad=0
for j in $(seq "$rounds"); do
  declare -n a=file${j}_non2xx b=mem${j}_non2xx
  rate_bad=$(( rate_bad + a + b ))
  unset -n a b
done
# shellcheck disable=SC2154 # set by wrk_run through printf -v
{
  r50=$(printf '%.2f' "$(echo "$pfile_p50_us / $pplay_p50_us" | bc -l)")
  r99=$(printf '%.2f' "$(echo "$pfile_p99_us / $pplay_p99_us" | bc -l)")
  m50=$(printf '%.2f' "$(echo "$pmem_p50_us / $pplay_p50_us" | bc -l)")
  m99=$(printf '%.2f' "$(echo "$pmem_p99_us / $pplay_p99_us" | bc -l)")
  clean=$(echo "$pfile_non2xx + $pplay_non2xx == 0" | bc)
  ok50=$(echo "$r50 <= 1.5 && $clean" | bc)
  ok99=$(echo "$r99 <= 1.5 && $clean" | bc)
  t=$(printf '%.0f' "$target")
  summary=(
    "| durable moves a second, saturated | — | $file_rate moves/s (median), non-2xx $rate_bad in all move runs | — | ≥ 1,000 moves/s | $(verdict "$ok_rate") |"
    "| durable move rate vs /v1/play rate | $play_rate req/s (median) | $file_rate moves/s | $file_vs_play (median of $rounds) | — | reported |"
    "| durable (file) vs memory store move rate | memory $mem_rate moves/s (median) | file $file_rate moves/s | $file_vs_mem (median of $rounds) | — | reported |"
    "| p50 at half the durable move rate (target $t req/s) | /v1/play $(ms "$pplay_p50_us") at $pplay_rps req/s | move $(ms "$pfile_p50_us") at $pfile_rps req/s | $r50 | ≤ 1.5, no non-2xx | $(verdict "$ok50") |"
    "| p99 at half the durable move rate (target $t req/s) | /v1/play $(ms "$pplay_p99_us") | move $(ms "$pfile_p99_us") | $r99 | ≤ 1.5, no non-2xx | $(verdict "$ok99") |"
    "| memory-store move at the same rate | /v1/play p50 $(ms "$pplay_p50_us"), p99 $(ms "$pplay_p99_us") | move p50 $(ms "$pmem_p50_us"), p99 $(ms "$pmem_p99_us") at $pmem_rps req/s | $m50 (p50), $m99 (p99) | — | reported |"
  )
}

echo "Commands:"
echo '```'
cat "$work/commands"
echo '```'
echo
echo "| check | baseline | linkpath | ratio | goal | pass/fail |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${summary[@]}"
echo
echo "Every wrk run (req/s 2xx counts only 2xx answers; answers by status from the server's /metrics; store reads, writes an answer: the run's store calls over its answers; store read and write: mean time of the run's store calls, a write including its commit; past end: requests after a thread's last move):"
echo
runs_table
echo
if [ -s "$work/server-errors.log" ]; then
  echo "Server logs with errors:"
  echo '```'
  head -20 "$work/server-errors.log"
  echo '```'
  echo
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
