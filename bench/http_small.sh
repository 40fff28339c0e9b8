#!/usr/bin/env bash
# Small requests over HTTP: the request rate of a Shisen-Sho solve (18 x 8
# board, string rows, one query) against GET /healthz on the same server,
# with the same load generator and connections (wrk -t2 -c32), with the
# solve run inline on the async worker (default) and on the blocking pool
# (LINKPATH_INLINE_MAX_BYTES=0). Then the solve's latency at a fixed rate of
# half the measured solve rate (each connection paced by bench/http_wrk.lua).
#
# Goals (BENCHMARKS.md, target 4):
#   solve req/s (2xx only) >= 0.60 x /healthz req/s
#   p99 latency < 5 ms at half the solve rate, with no non-2xx answers
#
# Loopback only; each wrk run is bounded by -d and stops by itself.
# The rates are taken in PAIRS alternating runs (/healthz, then the solve,
# PAIRS times) so that a change in the machine's load hits both; the ratio
# is the median of the pairs' ratios, the solve rate the median solve rate.
#   bench/http_small.sh [seconds per run, default 5]
# Env: LINKPATH_BIN (default: cargo build --release --locked, then
# target/release/linkpath), CONNS (32), THREADS (2), PAIRS (3),
# ACCEPT_ENCODING (unset: no Accept-Encoding header; e.g. 'gzip, br, zstd'
# on every request, /healthz's included); other LINKPATH_* settings (e.g.
# LINKPATH_WORKERS) pass through to the server.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
pairs=${PAIRS:-3}
conns=${CONNS:-32}
threads=${THREADS:-2}
export LP_ACCEPT_ENCODING=${ACCEPT_ENCODING:-}
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
# shellcheck source=bench/common.sh
. bench/common.sh
linkpath_binary
lua=$PWD/bench/http_wrk.lua
scratch_space

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

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_server() { # inline_max_bytes
  port=$(free_port)
  LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_INLINE_MAX_BYTES=$1 RUST_LOG=warn \
    "$bin" serve >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && return 0; sleep 0.1; done
  echo "server did not come up:" >&2; cat "$work/server.log" >&2; exit 1
}
stop_server() {
  kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
}

# wrk_run NAME URL [BODY] [DELAY_MS]: one bounded wrk run; its LPSTAT fields
# land in shell variables NAME_requests, NAME_p99_us, ... and NAME_rps2xx.
wrk_run() {
  local name=$1 url=$2 body=${3:-} delay=${4:-}
  echo "\$ ${LP_ACCEPT_ENCODING:+LP_ACCEPT_ENCODING='$LP_ACCEPT_ENCODING' }${body:+LP_BODY=body.json }${delay:+LP_DELAY_MS=$delay }wrk -t$threads -c$conns -d${secs}s --timeout 5s --latency -s bench/http_wrk.lua $url" >>"$work/commands"
  LP_BODY=$body LP_DELAY_MS=$delay wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 5s --latency -s "$lua" "$url" \
    >"$work/$name.txt" 2>&1
  local line
  line=$(grep '^LPSTAT ' "$work/$name.txt") || { echo "wrk failed:" >&2; cat "$work/$name.txt" >&2; exit 1; }
  for kv in ${line#LPSTAT }; do printf -v "${name}_${kv%%=*}" '%s' "${kv#*=}"; done
  local -n req=${name}_requests dur=${name}_duration_us bad=${name}_non2xx
  printf -v "${name}_rps" '%.0f' "$(echo "$req * 1000000 / $dur" | bc -l)"
  printf -v "${name}_rps2xx" '%.0f' "$(echo "($req - $bad) * 1000000 / $dur" | bc -l)"
}

ms() { printf '%.2f ms' "$(echo "$1 / 1000" | bc -l)"; }
verdict() { if [ "$1" = 1 ]; then echo pass; else echo FAIL; fi; }

echo "## bench/http_small.sh"
echo
echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg) (at start)"
echo "- binary: $bin"
echo "- server: LINKPATH_WORKERS=${LINKPATH_WORKERS:-default (cores)}, RUST_LOG=warn, loopback"
echo "- load: wrk -t$threads -c$conns -d${secs}s per run, $pairs alternating /healthz and solve runs per solve path; body: 18 x 8 Shisen-Sho deal (seed 1175), string rows, one query${LP_ACCEPT_ENCODING:+; every request with Accept-Encoding: $LP_ACCEPT_ENCODING}"
echo

summary=()
details=()
for mode in inline:4096 blocking-pool:0; do
  label=${mode%%:*} inline=${mode#*:}
  start_server "$inline"
  echo "\$ LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_INLINE_MAX_BYTES=$inline RUST_LOG=warn $bin serve" >>"$work/commands"
  # A warm-up request, and a check that the solve answers 200.
  code=$(curl -s -o "$work/answer.json" -w '%{http_code}' -H 'content-type: application/json' \
    --data-binary @"$work/body.json" "127.0.0.1:$port/v1/solve")
  [ "$code" = 200 ] || { echo "warm-up solve answered $code: $(cat "$work/answer.json")" >&2; exit 1; }

  rate_runs=() hs=() ss=() rs=()
  for j in $(seq "$pairs"); do
    wrk_run "health$j" "http://127.0.0.1:$port/healthz"
    wrk_run "solve$j" "http://127.0.0.1:$port/v1/solve" "$work/body.json"
    rate_runs+=("health$j" "solve$j")
    declare -n h=health${j}_rps2xx sv=solve${j}_rps2xx
    hs+=("$h") ss+=("$sv") rs+=("$(echo "$sv / $h" | bc -l)")
    unset -n h sv
  done
  median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
  health_rps2xx=$(printf '%.0f' "$(median "${hs[@]}")")
  solve_rps2xx=$(printf '%.0f' "$(median "${ss[@]}")")
  ratio=$(printf '%.2f' "$(median "${rs[@]}")")
  # Pacing: each connection waits D ms after each answer, so it asks for
  # 1000 / (D + L) req/s, L the time an answer takes (which itself depends
  # on the load). Short calibration runs (at most 4, secs_calib each) look
  # for the D that gives the target rate within 5%: D1 = 1000 * C / target,
  # then secant steps on the per-connection cycle 1000 * C / rate; the
  # measured run uses the calibrated D whose rate came closest.
  target=$(echo "$solve_rps2xx / 2" | bc -l)
  cyc=$(echo "1000 * $conns / $target" | bc -l)
  secs_full=$secs; secs_calib=$(( secs < 2 ? secs : 2 )); secs=$secs_calib
  d=$(printf '%.3f' "$cyc") pd= py= best_d= best_err=
  calibs=()
  for k in 1 2 3 4; do
    wrk_run "calib$k" "http://127.0.0.1:$port/v1/solve" "$work/body.json" "$d"
    printf -v "calib${k}_delay" '%s' "$d"
    calibs+=("calib$k")
    declare -n cr=calib${k}_rps
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
  secs=$secs_full
  delay=$best_d
  wrk_run paced "http://127.0.0.1:$port/v1/solve" "$work/body.json" "$delay"
  if grep -qiE 'panic|error' "$work/server.log"; then
    echo "server log ($label) mentions errors:" >&2; grep -m 5 -iE 'panic|error' "$work/server.log" >&2
  fi
  stop_server

  ok_rate=$(echo "$ratio >= 0.60" | bc)
  half=$(printf '%.2f' "$(echo "$paced_rps / $solve_rps2xx" | bc -l)")
  ok_lat=$(echo "$paced_p99_us < 5000 && $paced_non2xx == 0" | bc)
  summary+=("| $label | solve rate vs /healthz rate | $health_rps2xx req/s (median) | $solve_rps2xx req/s (median) | $ratio (median of $pairs pairs) | ≥ 0.60 | $(verdict "$ok_rate") |")
  summary+=("| $label | solve p99 at half the solve rate | target $(printf '%.0f' "$target") req/s, achieved $paced_rps req/s ($half × solve rate) | p99 $(ms "$paced_p99_us") (p50 $(ms "$paced_p50_us")), non-2xx $paced_non2xx | — | p99 < 5 ms, no non-2xx | $(verdict "$ok_lat") |")
  for r in "${rate_runs[@]}" "${calibs[@]}" paced; do
    declare -n q=${r}_requests d=${r}_duration_us b=${r}_non2xx s=${r}_sockerr p5=${r}_p50_us p9=${r}_p99_us mx=${r}_max_us rr=${r}_rps r2=${r}_rps2xx
    case $r in health*) what="GET /healthz, unpaced";; solve*) what="POST /v1/solve, unpaced";; calib*) declare -n cd=${r}_delay; what="POST /v1/solve, $cd ms per-connection delay (calibration, ${secs_calib}s)"; unset -n cd;; paced) what="POST /v1/solve, ${delay} ms per-connection delay";; esac
    details+=("| $label | $what | $q | $rr | $r2 | $(ms "$p5") | $(ms "$p9") | $(ms "$mx") | $b | $s |")
    unset -n q d b s p5 p9 mx rr r2
  done
done

echo "Commands:"
echo '```'
cat "$work/commands"
echo '```'
echo
echo "| solve path | check | baseline | linkpath | ratio | goal | pass/fail |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${summary[@]}"
echo
echo "Every wrk run (req/s 2xx counts only 2xx answers; the ratio uses it):"
echo
echo "| solve path | run | requests | req/s | req/s 2xx | p50 | p99 | max | non-2xx | socket errors |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${details[@]}"
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
