#!/usr/bin/env bash
# Players over HTTP: a signed-in move against an anonymous one, and
# sign-ups a second. The move is bench/games.sh's (one move of an 18 x 8
# Shisen-Sho game, POST /v1/games/{id}/moves); on a signed-in game it
# carries its player's token (Authorization: Bearer), which the server
# looks up, by its SHA-256, in the store on every request. Each on the
# `memory` store and on the durable `file:` store (each change synced to
# disk before it is answered). First the rates at saturation (wrk -t2
# -c32), then each move's latency at one fixed rate, half the anonymous
# rate on its store (paced as bench/games.sh paces). Sign-ups (POST
# /v1/players, guest sign-up on) at saturation on both stores.
#
# Goals:
#   signed-in moves/s >= anonymous moves/s / 1.1 on each store (within
#   1.1x: the ratio signed-in / anonymous >= 0.91), the median of the
#   rounds' ratios
#   reported, no goal: p50 and p99 of both at half the anonymous rate;
#   sign-ups a second, and against the anonymous move rate of the round
#
# Every answer is checked from the server's own counts
# (linkpath_http_requests_total on /metrics): a move run passes only with
# every answer 200, a sign-up run only with every answer 201, so a
# refusal cannot pass as a rate. The store's reads and writes an answer
# are shown for each run (a signed-in move's token lookup is a read).
#
# The moves: as bench/games.sh (bench/games_prep.py deal), and a signed-up
# player's game played to the end with its token, after a move without a
# token got 401 and one with another player's got 403 (games_prep.py
# players). Each wrk run starts a fresh server, on a fresh store file;
# an anonymous run creates GAMES games, a signed-in run signs up GAMES
# players and creates a game with each one's token (a player a game,
# within LINKPATH_MAX_GAMES_PER_PLAYER at its default), and wrk sends
# each game's moves with its token (bench/games_wrk.lua). GAMES games hold
# GAMES x 72 moves: 2000 last a 6 s run up to 24,000 moves/s (`past end`
# counts any beyond); raise GAMES with the seconds.
#
# Loopback only; each wrk run is bounded by -d and stops by itself;
# servers are stopped by their PID. The rates are taken in ROUNDS rounds;
# in each, on each store, the anonymous and the signed-in run go one after
# the other, the anonymous first in odd rounds and second in even ones,
# so that a change in the machine's load hits both; a ratio is the median
# of the rounds' ratios (with their min and max), a rate the median rate.
#   bench/players.sh [seconds per run, default 6]
# Env: LINKPATH_BIN (default: cargo build --release --locked, then
# target/release/linkpath), CONNS (32), THREADS (2), ROUNDS (3), GAMES
# (2000); the store and guest sign-up are set for each run, and
# LINKPATH_SIGN_UPS_PER_HOUR lifted unless set; other
# LINKPATH_* settings pass through to the server. LINKPATH_WORKERS is
# CONNS unless set, as in bench/games.sh, so the figures compare.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-6}
rounds=${ROUNDS:-3}
conns=${CONNS:-32}
threads=${THREADS:-2}
games=${GAMES:-2000}
workers=${LINKPATH_WORKERS:-$conns}
# Every sign-up comes from loopback, one address: lift the per-address
# bound on sign-ups for the runs, so that sign-ups a second time 201s.
export LINKPATH_SIGN_UPS_PER_HOUR=${LINKPATH_SIGN_UPS_PER_HOUR:-1000000000}
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

# The moves, and a player's game checked, from a server of its own.
start_server memory
nmoves=$("${prep[@]}" deal "$port" "$work")
"${prep[@]}" players "$port" "$work"
stop_server

echo "## bench/players.sh"
echo
echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg) (at start); store file on $(df -T "$work" | awk 'NR == 2 {print $2 " (" $1 ")"}')"
echo "- binary: $bin"
if [ -n "${LINKPATH_WORKERS:-}" ]; then why="as set"; else why="CONNS"; fi
echo "- server: LINKPATH_WORKERS=$workers ($why), LINKPATH_GUEST_SIGN_UP=true, LINKPATH_SIGN_UPS_PER_HOUR=$LINKPATH_SIGN_UPS_PER_HOUR, RUST_LOG=warn, loopback; a fresh server, and store file, for each run"
echo "- moves: POST /v1/deal $(cat "$work/deal.json") and its $nmoves clearing moves; a player's game played to the end with its token, refused 401 without it and 403 with another player's"
echo "- games: $games a run, split between wrk's $threads threads; signed-in runs: $games players, a game each"
echo "- load: wrk -t$threads -c$conns -d${secs}s per run, $rounds rounds of (memory: anonymous and signed-in, alternating which goes first; file: the same; sign-ups on memory, on file)"
echo

# only CODES STATUS: whether a run's answers were all STATUS.
only() { [[ $1 =~ ^$2:[0-9]+$ ]] && echo 1 || echo 0; }

# The rates at saturation.
declare -A rates ratios signups vs_anon
clean=1 signup_clean=1
for j in $(seq "$rounds"); do
  for s in mem file; do
    if [ "$s" = mem ]; then store=memory; else store=$file_store; fi
    if (( j % 2 )); then order=(anon signed); else order=(signed anon); fi
    for kind in "${order[@]}"; do
      if [ "$kind" = anon ]; then mode=game; else mode=signed; fi
      wrk_run "${kind}_$s$j" "$mode" "$store"
    done
    declare -n a=anon_$s${j}_rps2xx g=signed_$s${j}_rps2xx ac=anon_$s${j}_codes gc=signed_$s${j}_codes
    rates[anon_$s]+="$a " rates[signed_$s]+="$g "
    ratios[$s]+="$(echo "$g / $a" | bc -l) "
    clean=$(( clean & $(only "$ac" 200) & $(only "$gc" 200) ))
    unset -n a g ac gc
  done
  for s in mem file; do
    if [ "$s" = mem ]; then store=memory; else store=$file_store; fi
    wrk_run "signup_$s$j" signup "$store"
    declare -n u=signup_$s${j}_rps2xx uc=signup_$s${j}_codes a=anon_$s${j}_rps2xx
    signups[$s]+="$u " vs_anon[$s]+="$(echo "$u / $a" | bc -l) "
    signup_clean=$(( signup_clean & $(only "$uc" 201) ))
    unset -n u uc a
  done
done

# stats LIST DECIMALS: "median (min–max)" of a space-separated list.
stats() {
  local -a xs
  read -ra xs <<<"$1"
  printf '%.*f (%.*f–%.*f)' "$2" "$(median "${xs[@]}")" "$2" "$(minimum "${xs[@]}")" "$2" "$(maximum "${xs[@]}")"
}

# Latency at half the anonymous rate of each store, both kinds paced to it.
declare -A target
for s in mem file; do
  if [ "$s" = mem ]; then store=memory; else store=$file_store; fi
  read -ra xs <<<"${rates[anon_$s]}"
  target[$s]=$(echo "$(median "${xs[@]}") / 2" | bc -l)
  paced "panon_$s" game "$store" "${target[$s]}"
  paced "psigned_$s" signed "$store" "${target[$s]}"
  declare -n ac=panon_${s}_codes gc=psigned_${s}_codes
  clean=$(( clean & $(only "$ac" 200) & $(only "$gc" 200) ))
  unset -n ac gc
done

summary=()
for s in mem file; do
  if [ "$s" = mem ]; then name=memory; else name="file"; fi
  read -ra rs <<<"${ratios[$s]}"
  ratio=$(median "${rs[@]}")
  ok=$(echo "$ratio >= 1 / 1.1 && $clean" | bc -l)
  declare -n a5=panon_${s}_p50_us a9=panon_${s}_p99_us ar=panon_${s}_rps \
    g5=psigned_${s}_p50_us g9=psigned_${s}_p99_us gr=psigned_${s}_rps
  summary+=(
    "| moves a second, \`$name\` store, saturated | anonymous $(stats "${rates[anon_$s]}" 0) | signed-in $(stats "${rates[signed_$s]}" 0) | $(stats "${ratios[$s]}" 3) | ≥ 0.909 (within 1.1×), every answer 200 | $(verdict "$ok") |"
    "| p50, p99 at half the anonymous rate, \`$name\` (target $(printf '%.0f' "${target[$s]}") req/s) | $(ms "$a5"), $(ms "$a9") at $ar req/s | $(ms "$g5"), $(ms "$g9") at $gr req/s | $(printf '%.2f, %.2f' "$(echo "$g5 / $a5" | bc -l)" "$(echo "$g9 / $a9" | bc -l)") | — | reported |"
  )
  unset -n a5 a9 ar g5 g9 gr
done
for s in mem file; do
  if [ "$s" = mem ]; then name=memory; else name="file"; fi
  summary+=("| sign-ups a second, \`$name\` store, saturated | anonymous moves $(stats "${rates[anon_$s]}" 0) | $(stats "${signups[$s]}" 0) | $(stats "${vs_anon[$s]}" 3) | every answer 201 | $(if [ "$signup_clean" = 1 ]; then echo reported; else echo FAIL; fi) |")
done

echo "Commands:"
echo '```'
cat "$work/commands"
echo '```'
echo
echo "Rates: median (min–max) of $rounds rounds; a ratio is the median (min–max) of the rounds' ratios. Every move answer 200: $(if [ "$clean" = 1 ]; then echo yes; else echo NO; fi); every sign-up 201: $(if [ "$signup_clean" = 1 ]; then echo yes; else echo NO; fi) (the server's metrics)."
echo
echo "| check | baseline | linkpath | ratio | goal | pass/fail |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${summary[@]}"
echo
echo "Every wrk run (req/s 2xx counts only 2xx answers; answers by status from the server's /metrics; store reads, writes an answer: the run's store calls over its answers; store read and write: mean time of the run's store calls, a write including its commit; past end: requests after a thread's last move; games created in: sign-ups included):"
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
