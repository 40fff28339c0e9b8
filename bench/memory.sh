#!/usr/bin/env bash
# Memory under 16 concurrent 1000 x 1000 requests (BENCHMARKS.md, target
# 6). One server with LINKPATH_WORKERS=16 (16 solves may run at
# once; the 17th would get 503), then ROUNDS rounds of 16 requests sent
# together: half Mahjong 1000 x 1000 with string rows and 50 queries, half
# Lianliankan 1000 x 999 with numeric rows and 49 queries (distinct seeds).
# Reports VmHWM (peak RSS) and VmRSS after each round from /proc/PID/status:
#   (i)  peak RSS < 512 MiB
#   (ii) no growth across rounds: RSS after the last round at most RSS
#        after round 1 plus the larger of 10% and 16 MiB (allocator and
#        thread warm-up: a server whose RSS returns to ~10 MiB still gains
#        a few MiB over its first rounds, then stays flat); an info row also
#        compares the last round with the largest RSS after an earlier one,
#        to tell memory the allocator keeps (a plateau) from a leak, and
#        another the RSS SETTLE seconds after the last round (what a quiet
#        server gives back)
#   bench/memory.sh [ROUNDS, default 5]
# Env: LINKPATH_BIN (default: cargo build --release --locked, then
# target/release/linkpath), CONCURRENCY (16), MAHJONG_DENSITY (percent, 30),
# MAX_TIME (seconds a request may take, 900), SETTLE (seconds, 15). Bodies come from
# bench/baselines' `gen`, or bench/http_gen.py when that is not built (or
# NO_BASELINES=1).
# Loopback only; rounds and requests are bounded; the server is killed on
# exit.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
conc=${CONCURRENCY:-16}
density=${MAHJONG_DENSITY:-30}
max_time=${MAX_TIME:-900}
settle=${SETTLE:-15}
timeout_ms=$((max_time * 1000))
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
# shellcheck source=bench/common.sh
. bench/common.sh
linkpath_binary

input_generator

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
alloc_env=$(env | grep -E '^(_RJEM_MALLOC_CONF=|MALLOC_|GLIBC_TUNABLES=)' | tr '\n' ' ' || true)
scratch_space

bodies=()
for s in 1 2 3 4; do
  "${gen[@]}" mahjong-json --seed "$s" --density "$density" >"$work/mahjong-$s.json"
  "${gen[@]}" llk-json --seed "$s" >"$work/llk-$s.json"
  bodies+=("$work/mahjong-$s.json" "$work/llk-$s.json")
done

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
serve_env="LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_WORKERS=$conc LINKPATH_SOLVE_TIMEOUT_MS=$timeout_ms LINKPATH_BODY_TIMEOUT_MS=60000 RUST_LOG=warn"
env $serve_env "$bin" serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "127.0.0.1:$port/healthz" >/dev/null || { echo "server did not come up:" >&2; cat "$work/server.log" >&2; exit 1; }

load_cmd="python3 bench/memory_load.py --port $port --pid $server_pid --rounds $rounds --concurrency $conc --timeout $max_time --settle $settle"
$load_cmd "${bodies[@]}" >"$work/load.txt"
stat=$(grep '^MEMSTAT ' "$work/load.txt")
for kv in ${stat#MEMSTAT }; do printf -v "${kv%%=*}" '%s' "${kv#*=}"; done
if grep -qiE 'panic|error' "$work/server.log"; then
  echo "server log mentions errors:" >&2; grep -iE 'panic|error' "$work/server.log" | head -5 >&2
fi

echo "## bench/memory.sh"
echo
echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, load average $load_start (at start), $(cut -d' ' -f1-3 /proc/loadavg) (at end)"
echo "- binary: $bin; allocator settings in the environment: ${alloc_env:-none}"
echo "- bodies: $gen_name mahjong-json --seed 1..4 --density $density ($(wc -c <"$work/mahjong-1.json") bytes each) and llk-json --seed 1..4 ($(wc -c <"$work/llk-1.json") bytes each); request i of a round takes body i mod 8, so each round is $(( (conc + 1) / 2 )) Mahjong + $(( conc / 2 )) Lianliankan"
echo
echo "Commands:"
echo '```'
echo "\$ $serve_env $bin serve"
echo "\$ $load_cmd mahjong-1.json llk-1.json ... mahjong-4.json llk-4.json"
echo '```'
echo
grep -v '^MEMSTAT ' "$work/load.txt"
python3 - "$idle_kb" "$hwm_kb" "$first_kb" "$last_kb" "$before_last_kb" "$settled_kb" "$non200" "$errors" "$rounds" "$settle" <<'PY'
import sys
idle, hwm, first, last, before_last, settled, non200, errors, rounds, settle = map(int, sys.argv[1:])
mib = lambda kb: f"{kb / 1024:.1f} MiB"
limit = 512 * 1024
print("| check | baseline | linkpath | ratio | goal | pass/fail |")
print("|---|---|---|---|---|---|")
print(f"| (i) peak RSS (VmHWM) | idle RSS {mib(idle)}; budget 512 MiB | {mib(hwm)} | {hwm / limit:.2f} of the budget | < 512 MiB | {'pass' if hwm < limit else 'FAIL'} |")
g = last / first
grow_ok = last <= first * 1.10 or last - first <= 16 * 1024
print(f"| (ii) growth across rounds | RSS after round 1: {mib(first)} | after round {rounds}: {mib(last)} ({(last - first) / 1024:+.1f} MiB) | {g:.2f} | ≤ 1.10, or ≤ +16 MiB | {'pass' if grow_ok else 'FAIL'} |")
if rounds > 2:
    print(f"| (info) plateau: last round vs the largest RSS after an earlier round | {mib(before_last)} | {mib(last)} | {last / before_last:.2f} | — | — |")
print(f"| (info) given back when quiet: RSS {settle} s after the last round vs idle | idle {mib(idle)} | {mib(settled)} | {settled / idle:.2f} | — | — |")
ok = non200 == 0 and errors == 0
print(f"| every request answered 200 | — | {non200} other statuses, {errors} failed requests | — | 0 | {'pass' if ok else 'FAIL'} |")
PY
