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

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_server STORE: a fresh server (and, for a file store, a fresh file).
start_server() {
  port=$(free_port)
  rm -f "$work/games.redb"
  LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_STORE=$1 LINKPATH_WORKERS=$workers RUST_LOG=warn \
    "$bin" serve >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && return 0; sleep 0.1; done
  echo "server did not come up:" >&2; cat "$work/server.log" >&2; exit 1
}
stop_server() {
  kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
  if grep -qiE 'panic|error' "$work/server.log"; then
    echo "server log mentions errors:" >&2; grep -iE 'panic|error' "$work/server.log" | head -5 >&2
    cat "$work/server.log" >>"$work/server-errors.log"
  fi
}

# metrics FILE ROUTE: the answers to ROUTE by status ("200:N 409:N"), and the
# store's read and write counts and seconds, from the server's /metrics.
metrics() {
  curl -sf "127.0.0.1:$port/metrics" | awk -v route="$2" '
    index($0, "linkpath_http_requests_total{") == 1 && index($0, "route=\"" route "\"") {
      match($0, /status="[0-9]+"/); s = substr($0, RSTART + 8, RLENGTH - 9); n[s] += $NF }
    /^linkpath_store_duration_seconds_(sum|count)\{/ {
      match($0, /operation="[a-z]+"/); op = substr($0, RSTART + 11, RLENGTH - 12)
      kind = ($0 ~ /_sum\{/) ? "sum" : "count"; st[op "_" kind] += $NF }
    END {
      line = ""; for (s in n) if (n[s] > 0) line = line s ":" n[s] " "
      printf "codes=%s\n", line
      printf "read_count=%d read_sum=%.6f write_count=%d write_sum=%.6f\n",
        st["read_count"], st["read_sum"], st["write_count"], st["write_sum"] }' >"$1"
}

# what MODE STORE: the line naming a run's endpoint.
what() { if [ "$1" = play ]; then echo "POST /v1/play"; else echo "move, --store ${2%%:*}"; fi; }

# wrk_run NAME MODE STORE [DELAY_MS] [SECONDS]: a fresh server with STORE
# (MODE game: with GAMES games), then one bounded wrk run; its LPSTAT fields
# land in shell variables NAME_requests, NAME_p99_us, ..., and NAME_rps,
# NAME_rps2xx, NAME_codes, NAME_write_us (mean store write), NAME_read_us,
# NAME_create_s (seconds to create the games).
wrk_run() {
  local name=$1 mode=$2 store=$3 delay=${4:-} d=${5:-$secs} route=/v1/play
  start_server "$store"
  printf -v "${name}_create_s" '%s' -
  if [ "$mode" = game ]; then
    route="/v1/games/{id}/moves"
    printf -v "${name}_create_s" '%s' "$("${prep[@]}" create "$port" "$games" "$work")"
  fi
  metrics "$work/before" "$route"
  echo "\$ LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_STORE=$store LINKPATH_WORKERS=$workers RUST_LOG=warn $bin serve" >>"$work/commands"
  echo "\$ LP_MODE=$mode LP_GAMES=$games${delay:+ LP_DELAY_MS=$delay} wrk -t$threads -c$conns -d${d}s --timeout 5s --latency -s bench/games_wrk.lua http://127.0.0.1:$port" >>"$work/commands"
  LP_MODE=$mode LP_GAMES=$games LP_THREADS=$threads LP_IDS=$work/ids.txt LP_MOVES=$work/moves.txt \
    LP_PLAY=$work/play.txt LP_DELAY_MS=$delay \
    wrk -t"$threads" -c"$conns" -d"${d}s" --timeout 5s --latency -s "$lua" "http://127.0.0.1:$port" \
    >"$work/$name.txt" 2>&1
  metrics "$work/after" "$route"
  stop_server
  local line
  line=$(grep '^LPSTAT ' "$work/$name.txt") || { echo "wrk failed:" >&2; cat "$work/$name.txt" >&2; exit 1; }
  for kv in ${line#LPSTAT }; do printf -v "${name}_${kv%%=*}" '%s' "${kv#*=}"; done
  local -n req=${name}_requests dur=${name}_duration_us bad=${name}_non2xx
  printf -v "${name}_rps" '%.0f' "$(echo "$req * 1000000 / $dur" | bc -l)"
  printf -v "${name}_rps2xx" '%.0f' "$(echo "($req - $bad) * 1000000 / $dur" | bc -l)"
  # The run's own store calls: after minus before (the games' creation).
  local codes rc rs wc ws
  codes=$(sed -n 's/^codes=//p' "$work/after")
  read -r rc rs wc ws < <(paste -d' ' <(sed -n 2p "$work/before") <(sed -n 2p "$work/after") | awk '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[i] = kv[2] }
    print v[5] - v[1], v[6] - v[2], v[7] - v[3], v[8] - v[4] }')
  printf -v "${name}_codes" '%s' "${codes:-none}"
  printf -v "${name}_read_us" '%s' "$(if [ "$rc" -gt 0 ]; then printf '%.0f' "$(echo "$rs * 1000000 / $rc" | bc -l)"; else echo -; fi)"
  printf -v "${name}_write_us" '%s' "$(if [ "$wc" -gt 0 ]; then printf '%.0f' "$(echo "$ws * 1000000 / $wc" | bc -l)"; else echo -; fi)"
  printf -v "${name}_mode" '%s' "$mode"
  printf -v "${name}_store" '%s' "$store"
  printf -v "${name}_delay" '%s' "$delay"
  printf -v "${name}_secs" '%s' "$d"
  runs+=("$name")
}

ms() { printf '%.2f ms' "$(echo "$1 / 1000" | bc -l)"; }
us() { if [ "$1" = - ]; then echo -; else echo "$1 µs"; fi; }
verdict() { if [ "$1" = 1 ]; then echo pass; else echo FAIL; fi; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

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

# Latency at half the durable move rate. Pacing: each connection waits D ms
# after each answer, so it asks for 1000 / (D + L) req/s, L the time an
# answer takes (which itself depends on the load). Short calibration runs
# (at most 3, secs_calib each, each on a fresh server) look for the D that
# gives the target rate within 5%: D1 = 1000 * C / target, then secant
# steps on the per-connection cycle 1000 * C / rate; the measured run uses
# the calibrated D whose rate came closest.
target=$(echo "$file_rate / 2" | bc -l)
cyc=$(echo "1000 * $conns / $target" | bc -l)
secs_calib=$(( secs < 2 ? secs : 2 ))
paced() { # NAME MODE STORE: calibrates, then runs NAME paced
  local name=$1 mode=$2 store=$3 d pd='' py='' y nd err best_d='' best_err='' k
  d=$(printf '%.3f' "$cyc")
  for k in 1 2 3; do
    wrk_run "${name}_calib$k" "$mode" "$store" "$d" "$secs_calib"
    local -n cr=${name}_calib${k}_rps
    y=$(echo "1000 * $conns / $cr - $cyc" | bc -l)          # cycle error, ms
    err=$(echo "e = $cr / $target - 1; if (e < 0) e = -e; e" | bc -l)
    unset -n cr
    if [ -z "$best_err" ] || [ "$(echo "$err < $best_err" | bc)" = 1 ]; then best_err=$err best_d=$d; fi
    [ "$(echo "$err <= 0.05" | bc)" = 1 ] && break
    if [ -n "$pd" ] && [ "$(echo "x = $y - $py; x > 0.001 || x < -0.001" | bc)" = 1 ]; then
      nd=$(echo "$d - $y * ($d - $pd) / ($y - $py)" | bc -l)
    else
      nd=$(echo "$d - $y" | bc -l)
    fi
    pd=$d py=$y
    d=$(printf '%.3f' "$(echo "x = $nd; if (x < 0.05) x = 0.05; if (x > 2 * $cyc) x = 2 * $cyc; x" | bc -l)")
  done
  wrk_run "$name" "$mode" "$store" "$best_d"
}
paced pfile game "$file_store"
paced pplay play memory
paced pmem game memory

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
echo "Every wrk run (req/s 2xx counts only 2xx answers; answers by status from the server's /metrics; store read and write: mean time of the run's store calls, a write including its commit; past end: requests after a thread's last move):"
echo
echo "| run | endpoint | seconds | delay | requests | req/s | req/s 2xx | p50 | p99 | max | answers by status | socket errors | past end | store read | store write | games created in |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${runs[@]}"; do
  declare -n q=${r}_requests rr=${r}_rps r2=${r}_rps2xx p5=${r}_p50_us p9=${r}_p99_us mx=${r}_max_us \
    s=${r}_sockerr w=${r}_wrapped c=${r}_codes sr=${r}_read_us sw=${r}_write_us cs=${r}_create_s \
    mo=${r}_mode st=${r}_store dl=${r}_delay sc=${r}_secs
  echo "| $r | $(what "$mo" "$st") | $sc | ${dl:-none} | $q | $rr | $r2 | $(ms "$p5") | $(ms "$p9") | $(ms "$mx") | $c | $s | $w | $(us "$sr") | $(us "$sw") | $(if [ "$cs" = - ]; then echo -; else echo "$cs s"; fi) |"
  unset -n q rr r2 p5 p9 mx s w c sr sw cs mo st dl sc
done
echo
if [ -s "$work/server-errors.log" ]; then
  echo "Server logs with errors:"
  echo '```'
  grep -iE 'panic|error' "$work/server-errors.log" | head -20
  echo '```'
  echo
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
