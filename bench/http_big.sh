#!/usr/bin/env bash
# Big boards over HTTP (BENCHMARKS.md, target 5), ratios taken in this
# run:
#   (a) a 1000 x 1000 Mahjong request, string rows, 50 queries: the HTTP
#       request (curl time_total against a running release server) vs
#       `linkpath solve` on the same body as a process (wall time); goal
#       <= 1.2.
#   (b) a 1000 x 999 Lianliankan request, numeric rows, 49 queries: the HTTP
#       request vs serde_json alone parsing that body in-process
#       (bench/baselines' serde-floor, its median); goal <= 1.5.
# One warm-up of each first (also the correctness check: the HTTP answer
# must equal `linkpath solve`'s output byte for byte, but for a trailing
# newline), then RUNS interleaved rounds; each figure is the median over the
# rounds.
#   bench/http_big.sh [RUNS, default 5]
# Env: LINKPATH_BIN (default: cargo build --release --locked, then
# target/release/linkpath), SEED (1), MAHJONG_DENSITY (percent, 30),
# SERDE_ITERS (serde-floor parses per round, 5). Bodies come from
# bench/baselines' `gen` (built with cargo if needed); without that package,
# (or with NO_BASELINES=1) from bench/http_gen.py (same shapes, not the
# same bytes) and (b) is skipped, having no serde floor.
# Loopback only; every request is bounded by curl --max-time / timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
seed=${SEED:-1}
density=${MAHJONG_DENSITY:-30}
serde_iters=${SERDE_ITERS:-5}
max_time=${MAX_TIME:-900} # seconds, per request or process
timeout_ms=$((max_time * 1000))
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
# shellcheck source=bench/common.sh
. bench/common.sh
linkpath_binary

input_generator --bin serde-floor
serde_floor=
[ -x "$baselines/serde-floor" ] && serde_floor=$baselines/serde-floor

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
scratch_space

"${gen[@]}" mahjong-json --seed "$seed" --density "$density" >"$work/mahjong.json"
"${gen[@]}" llk-json --seed "$seed" >"$work/llk.json"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export LINKPATH_SOLVE_TIMEOUT_MS=$timeout_ms
LINKPATH_LISTEN=127.0.0.1:$port RUST_LOG=warn "$bin" serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "127.0.0.1:$port/healthz" >/dev/null || { echo "server did not come up:" >&2; cat "$work/server.log" >&2; exit 1; }

# http FILE OUT: POST FILE to /v1/solve; prints "seconds status".
http() {
  curl -s -o "$2" -w '%{time_total} %{http_code}\n' --max-time "$max_time" \
    -H 'content-type: application/json' --data-binary @"$1" "http://127.0.0.1:$port/v1/solve"
}
# process FILE OUT: `linkpath solve FILE`; prints the wall time in seconds.
process() {
  local t0=$EPOCHREALTIME
  timeout "$max_time" "$bin" solve "$1" >"$2"
  echo "$EPOCHREALTIME - $t0" | bc -l
}
# same A B: byte-equal but for one trailing newline on either side.
same() { python3 - "$1" "$2" <<'PY'
import sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
sys.exit(0 if a.rstrip(b"\n") == b.rstrip(b"\n") and len(a) - len(a.rstrip(b"\n")) <= 1 and len(b) - len(b.rstrip(b"\n")) <= 1 else 1)
PY
}

# Warm-up and correctness.
for b in mahjong llk; do
  read -r t code < <(http "$work/$b.json" "$work/$b.http")
  [ "$code" = 200 ] || { echo "FAIL: POST /v1/solve ($b) answered $code: $(head -c 500 "$work/$b.http")" >&2; exit 1; }
  process "$work/$b.json" "$work/$b.cli" >/dev/null
  if ! same "$work/$b.http" "$work/$b.cli"; then
    echo "FAIL: the HTTP answer for $b differs from \`linkpath solve\`'s output:" >&2
    cmp "$work/$b.http" "$work/$b.cli" >&2 || true
    exit 1
  fi
  echo "$b: HTTP answer ($(wc -c <"$work/$b.http") bytes) = linkpath solve output; warm-up HTTP ${t}s" >"$work/check.$b"
done

# Interleaved rounds.
: >"$work/rounds"
for i in $(seq "$runs"); do
  read -r hm code < <(http "$work/mahjong.json" /dev/null)
  [ "$code" = 200 ] || { echo "FAIL: round $i mahjong answered $code" >&2; exit 1; }
  pm=$(process "$work/mahjong.json" /dev/null)
  read -r hl code < <(http "$work/llk.json" /dev/null)
  [ "$code" = 200 ] || { echo "FAIL: round $i llk answered $code" >&2; exit 1; }
  pl=$(process "$work/llk.json" /dev/null)
  sf=-
  if [ -n "$serde_floor" ]; then
    sf=$("$serde_floor" "$work/llk.json" --iters "$serde_iters" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    sf=$(echo "$sf / 1000" | bc -l)
  fi
  echo "$i $hm $pm $hl $pl $sf" >>"$work/rounds"
done
if grep -qiE 'panic|error' "$work/server.log"; then
  echo "server log mentions errors:" >&2; grep -iE 'panic|error' "$work/server.log" | head -5 >&2
fi

echo "## bench/http_big.sh"
echo
echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load average $load_start (at start)"
echo "- binary: $bin"
echo "- bodies: $gen_name mahjong-json --seed $seed --density $density ($(wc -c <"$work/mahjong.json") bytes); llk-json --seed $seed ($(wc -c <"$work/llk.json") bytes)"
echo "- $runs interleaved rounds after one warm-up; medians"
echo
echo "Commands:"
echo '```'
echo "\$ LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_SOLVE_TIMEOUT_MS=$timeout_ms RUST_LOG=warn $bin serve"
echo "\$ curl -s -o /dev/null -w '%{time_total} %{http_code}' -H 'content-type: application/json' --data-binary @BODY http://127.0.0.1:$port/v1/solve"
echo "\$ LINKPATH_SOLVE_TIMEOUT_MS=$timeout_ms $bin solve BODY >/dev/null    # wall time"
[ -n "$serde_floor" ] && echo "\$ $serde_floor llk.json --iters $serde_iters    # median_ms"
echo '```'
echo
cat "$work/check.mahjong" "$work/check.llk" | sed 's/^/- /'
echo
python3 - "$work/rounds" "$([ -n "$serde_floor" ] && echo 1 || echo 0)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
have_floor = sys.argv[2] == "1"
col = lambda k: [float(r[k]) for r in rows if r[k] != "-"]
med = lambda k: statistics.median(col(k))
ms = lambda s: f"{s * 1000:.1f} ms"
hm, pm, hl, pl = med(1), med(2), med(3), med(4)
print("| check | baseline | linkpath | ratio | goal | pass/fail |")
print("|---|---|---|---|---|---|")
r = hm / pm
print(f"| (a) Mahjong 1000 x 1000, string rows, 50 queries | `linkpath solve` process {ms(pm)} | HTTP {ms(hm)} | {r:.2f} | ≤ 1.2 | {'pass' if r <= 1.2 else 'FAIL'} |")
if have_floor:
    sf = med(5)
    r = hl / sf
    print(f"| (b) Lianliankan 1000 x 999, numeric rows, 49 queries | serde_json parse {ms(sf)} | HTTP {ms(hl)} | {r:.2f} | ≤ 1.5 | {'pass' if r <= 1.5 else 'FAIL'} |")
else:
    print(f"| (b) Lianliankan 1000 x 999, numeric rows, 49 queries | serde-floor not built | HTTP {ms(hl)} | — | ≤ 1.5 | skipped |")
print(f"| (info) Lianliankan, `linkpath solve` process | `linkpath solve` process {ms(pl)} | HTTP {ms(hl)} | {hl / pl:.2f} | — | — |")
print()
print("Every round (seconds):")
print()
print("| round | Mahjong HTTP | Mahjong process | Lianliankan HTTP | Lianliankan process | serde_json parse (median of the round) |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join([r[0]] + [x if x == "-" else f"{float(x):.4f}" for x in r[1:]]) + " |")
PY
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
