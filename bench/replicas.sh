#!/usr/bin/env bash
# Held games across replicas, on loopback. One move of an 18 x 8 Shisen-Sho
# game (POST /v1/games/{id}/moves, bench/games.sh's workload and wrk script)
# through three set-ups, in the same run:
#
#   file    one replica on the embedded store (a redb file in a temp dir),
#           hit directly: the baseline
#   redis1  one replica on Redis, hit directly
#   nginx2  two replicas on one Redis behind nginx, with
#           deploy/compose/nginx.conf substituted for loopback as the
#           scripts' tests run it (scripts/lib.sh: listen port, the
#           replicas' ports, no resolver)
#
# Then the event fan-out, on nginx2: STREAMS event streams
# (GET /v1/games/{id}/events, through nginx, so about half are on the
# replica that did not make a change and get it through Redis's pub/sub)
# open on as many of the games being moved, against none. After each run
# with streams, every stream must hold every version of its game from its
# first event to the game's last, none missing (bench/replicas_watch.py).
#
# Rates at saturation (wrk -t2 -c32, 2xx only), then p50/p99 with every
# connection paced for about half the file store's median rate. ROUNDS rounds alternate the set-ups, so a change in the
# machine's load hits each; a ratio is the median of the rounds' ratios
# to the file store of the same round, printed with the rounds' min and
# max. The machine's load average is printed at each run's start.
#
# Redis is a redis-server of the script's own on a free loopback port
# with Compose's settings (append-only file, fsync every second), its
# files in the temp dir: an acknowledged change is in Redis's memory, not
# yet on disk, where the file store syncs each commit before answering
# (docs/guides/replicas.md, "Durability is Redis's"). Every process runs on the
# same cores: two replicas add no CPU here, so nginx2 shows what the hop
# and the sharing cost, not what scaling out gains.
#
#   bench/replicas.sh [seconds per run, default 5]
# About 4 minutes with the defaults. Env: LINKPATH_BIN (default: cargo
# build --release --locked, then target/release/linkpath), ROUNDS (3),
# GAMES (1500), STREAMS (100). Needs wrk, curl, python3, redis-server and
# redis-cli, and nginx (Debian's, in /usr/sbin). Loopback only; every
# load is bounded by wrk's -d; stops by PID every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${ROUNDS:-3}
games=${GAMES:-1500}
streams=${STREAMS:-100}
conns=32
threads=2
PATH=$PATH:/usr/sbin
for tool in wrk curl python3 redis-server redis-cli nginx bc; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk curl python3 redis-server nginx bc)" >&2; exit 1; }
done
# shellcheck source=bench/common.sh
. bench/common.sh
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
linkpath_binary
lua=$PWD/bench/games_wrk.lua
prep=(python3 bench/games_prep.py)
scratch_space
# Every process started here (in `pids`), stopped by its PID on exit:
# common.sh's cleanup knows one server only.
clean_up_on_exit "$work"

load() { cut -d' ' -f1 /proc/loadavg; }

# redis: a fresh redis-server, its append-only file in a fresh directory
# (a run writes about 200 MB of it: each change writes the whole game);
# sets `redis_url`.
redis() {
  local rport
  rport=$(free_port)
  rm -rf "$work/redis"; mkdir "$work/redis"
  start_redis "$rport" "$work/redis" "$work/redis.log" --save '' \
    --appendonly yes --appendfsync everysec --maxmemory 1gb --maxmemory-policy noeviction
  up+=("$redis_pid")
  redis_url="redis://127.0.0.1:$rport/0?prefix=bench"
  echo "\$ redis-server --port RPORT --bind 127.0.0.1 --dir DIR/redis --save '' --appendonly yes --appendfsync everysec --maxmemory 1gb --maxmemory-policy noeviction" >>"$work/commands"
}

# replica NAME STORE: a server; sets `last_port`.
replica() {
  LINKPATH_STORE=$2 RUST_LOG=warn start_replica "$work/$1.log"
  last_port=$replica_port; up+=("$replica_pid")
  echo "\$ LINKPATH_LISTEN=127.0.0.1:PORT LINKPATH_STORE=${2//$work/DIR} RUST_LOG=warn $bin serve" \
    | sed -E 's/127.0.0.1:[0-9]+\/0/127.0.0.1:RPORT\/0/' >>"$work/commands"
}

# setup SETUP: fresh processes and store for one run; sets `port`, the
# address wrk and the clients use, and `up`, the PIDs to stop after.
setup() {
  up=()
  case $1 in
    file)
      rm -f "$work/games.redb"
      replica file "file:$work/games.redb"; port=$last_port ;;
    redis1)
      redis
      replica redis1 "$redis_url"; port=$last_port ;;
    nginx2)
      redis
      replica nginx2-a "$redis_url"; local a=$last_port
      replica nginx2-b "$redis_url"; local b=$last_port
      port=$(free_port)
      start_nginx "$work" nginx "$port" "127.0.0.1:$a" "127.0.0.1:$b"
      up+=("$nginx_pid")
      echo "\$ nginx -p DIR/ -c DIR/nginx.conf -g 'daemon off; pid DIR/nginx.pid; error_log DIR/nginx.error.log warn;'   # deploy/compose/nginx.conf: listen 127.0.0.1:PORT, the two replicas' ports, no resolver" >>"$work/commands" ;;
  esac
}

# run NAME SETUP DELAY_MS WATCH [SECONDS]: one bounded wrk run on fresh
# processes and GAMES fresh games (DELAY_MS empty: saturated; WATCH 1:
# STREAMS streams open throughout). Its figures land in R[NAME.field].
declare -A R
runs=()
run() {
  local name=$1 set=$2 delay=$3 watch=$4 d=${5:-$secs} watch_pid=
  R[$name.load]=$(load)
  setup "$set"
  "${prep[@]}" create "$port" "$games" "$work" >/dev/null
  echo "\$ python3 bench/games_prep.py create PORT $games DIR" >>"$work/commands"
  if [ "$watch" = 1 ]; then
    rm -f "$work/ready"
    python3 bench/replicas_watch.py "$port" "$work/ids.txt" "$streams" "$work/ready" $((d + 30)) \
      >"$work/$name.watch" 2>"$work/$name.watch.err" &
    watch_pid=$!; pids+=("$watch_pid")
    for _ in $(seq 100); do [ -e "$work/ready" ] && break; kill -0 "$watch_pid" 2>/dev/null || break; sleep 0.1; done
    [ -e "$work/ready" ] || { echo "the streams did not open:" >&2; cat "$work/$name.watch.err" >&2; exit 1; }
  fi
  LP_MODE=game LP_GAMES=$games LP_THREADS=$threads LP_IDS=$work/ids.txt LP_MOVES=$work/moves.txt \
    LP_DELAY_MS=$delay \
    wrk -t"$threads" -c"$conns" -d"${d}s" --timeout 5s --latency -s "$lua" "http://127.0.0.1:$port" \
    >"$work/$name.txt" 2>&1
  R[$name.streams]=-
  if [ -n "$watch_pid" ]; then
    kill -TERM "$watch_pid"
    local rc=0
    wait "$watch_pid" || rc=$?
    forget "$watch_pid"
    [ "$rc" = 0 ] || { echo "the stream reader failed:" >&2; cat "$work/$name.watch.err" >&2; exit 1; }
    local w
    w=$(grep '^WATCH ' "$work/$name.watch") || { cat "$work/$name.watch.err" >&2; exit 1; }
    for kv in ${w#WATCH }; do R[$name.w_${kv%%=*}]=${kv#*=}; done
    R[$name.streams]="${R[$name.w_complete]}/$streams complete, ${R[$name.w_events]} events of ${R[$name.w_expected]}"
    [ "${R[$name.w_complete]}" = "$streams" ] || { echo "$name: $w" >&2; cat "$work/$name.watch.err" >&2; }
  fi
  stop "${up[@]}"
  # Replicas log at warn: any error or panic is kept for the report, but
  # for the 503s of game creation, all solver slots busy, which
  # games_prep.py retries (a 5xx is logged as an error).
  grep -iHE 'panic|error' "$work"/*.log /dev/null | sed "s|^$work/|$name: |" \
    | grep -vF 'method=POST route="/v1/games" status=503 error_code="overloaded"' >>"$work/errors" || true
  [ ! -s "$work/nginx.error.log" ] || sed "s|^|$name: nginx: |" "$work/nginx.error.log" >>"$work/errors"
  rm -f "$work"/*.log
  local line
  line=$(grep '^LPSTAT ' "$work/$name.txt") || { echo "wrk failed:" >&2; cat "$work/$name.txt" >&2; exit 1; }
  for kv in ${line#LPSTAT }; do R[$name.${kv%%=*}]=${kv#*=}; done
  R[$name.rps]=$(echo "${R[$name.requests]} * 1000000 / ${R[$name.duration_us]}" | bc -l)
  R[$name.rps2xx]=$(echo "(${R[$name.requests]} - ${R[$name.non2xx]}) * 1000000 / ${R[$name.duration_us]}" | bc -l)
  R[$name.set]=$set R[$name.delay]=${delay:-none} R[$name.secs]=$d R[$name.watch]=$watch
  runs+=("$name")
  [ "$watch" = 1 ] && echo "\$ python3 bench/replicas_watch.py PORT DIR/ids.txt $streams DIR/ready $((d + 30))   # $set, during wrk; SIGTERM after" >>"$work/commands"
  echo "\$ LP_MODE=game LP_GAMES=$games LP_THREADS=$threads LP_IDS=DIR/ids.txt LP_MOVES=DIR/moves.txt${delay:+ LP_DELAY_MS=$delay} wrk -t$threads -c$conns -d${d}s --timeout 5s --latency -s bench/games_wrk.lua http://127.0.0.1:PORT   # $set" >>"$work/commands"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# mmm FORMAT VALUES...: "median (min–max)"
mmm() {
  local f=$1; shift
  local lo hi
  lo=$(printf '%s\n' "$@" | sort -g | head -1); hi=$(printf '%s\n' "$@" | sort -g | tail -1)
  printf "$f ($f–$f)" "$(median "$@")" "$lo" "$hi"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
started=$SECONDS

# The moves, from a server of its own (games_prep.py checks them).
up=(); replica prep memory; port=$last_port
nmoves=$("${prep[@]}" deal "$port" "$work")
echo "\$ python3 bench/games_prep.py deal PORT DIR" >>"$work/commands"
stop "${up[@]}"

sets=(file redis1 nginx2)
# The rates at saturation.
for j in $(seq "$rounds"); do
  for s in "${sets[@]}"; do run "sat-$s-$j" "$s" "" 0; done
done
for s in "${sets[@]}"; do
  v=(); for j in $(seq "$rounds"); do v+=("${R[sat-$s-$j.rps2xx]}"); done
  R[rate.$s]=$(median "${v[@]}")
done

# Paced: each connection waits D ms after each answer, D the cycle that
# half the file store's rate gives 32 connections, so each asks
# 1000 / (D + L) a second, L its latency: a set-up with a slower answer is
# offered a little less, never more. One D for all: a calibration run per
# set-up (bench/games.sh) misled more than it corrected at this load.
target=$(echo "${R[rate.file]} / 2" | bc -l)
delay=$(printf '%.3f' "$(echo "1000 * $conns / $target" | bc -l)")
for j in $(seq "$rounds"); do
  for s in "${sets[@]}"; do run "paced-$s-$j" "$s" "$delay" 0; done
done

# The fan-out: nginx2 with and without the streams, saturated and paced.
for j in $(seq "$rounds"); do
  run "sat-nostreams-$j" nginx2 "" 0
  run "sat-streams-$j" nginx2 "" 1
  run "paced-nostreams-$j" nginx2 "$delay" 0
  run "paced-streams-$j" nginx2 "$delay" 1
done

ms() { printf '%.2f' "$(echo "$1 / 1000" | bc -l)"; }
# figures PREFIX SET FIELD: the rounds' values of one field
figures() { local j; for j in $(seq "$rounds"); do echo "${R[$1-$2-$j.$3]}"; done; }
# ratios PREFIX SET BASE_PREFIX BASE_SET FIELD: each round's SET / BASE
ratios() { local j; for j in $(seq "$rounds"); do echo "${R[$1-$2-$j.$5]} / ${R[$3-$4-$j.$5]}" | bc -l; done; }
row() { # row LABEL PREFIX SET BASE_PREFIX BASE_SET
  local rate p50 p99 prate
  mapfile -t rate < <(figures "$2" "$3" rps2xx)
  mapfile -t prate < <(figures "paced${2#sat}" "$3" rps2xx)
  mapfile -t p50 < <(figures "paced${2#sat}" "$3" p50_us | while read -r x; do ms "$x"; echo; done)
  mapfile -t p99 < <(figures "paced${2#sat}" "$3" p99_us | while read -r x; do ms "$x"; echo; done)
  local rr r50 r99
  mapfile -t rr < <(ratios "$2" "$3" "$4" "$5" rps2xx)
  mapfile -t r50 < <(ratios "paced${2#sat}" "$3" "paced${4#sat}" "$5" p50_us)
  mapfile -t r99 < <(ratios "paced${2#sat}" "$3" "paced${4#sat}" "$5" p99_us)
  local x50=— x99=— xr=—
  if [ "$3" != "$5" ]; then
    xr=$(mmm %.2f "${rr[@]}"); x50=$(mmm %.2f "${r50[@]}"); x99=$(mmm %.2f "${r99[@]}")
  fi
  echo "| $1 | $(mmm %.0f "${rate[@]}") | $xr | $(mmm %.0f "${prate[@]}") | $(mmm %.2f "${p50[@]}") | $x50 | $(mmm %.2f "${p99[@]}") | $x99 |"
}

echo "## bench/replicas.sh"
echo
echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)'), binary $bin"
echo "- machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), shared; load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg) at end; $((SECONDS - started)) s"
echo "- $(redis-server --version | cut -d' ' -f1-3), appendonly yes, appendfsync everysec; $(nginx -v 2>&1 | sed 's/^nginx version: //') with deploy/compose/nginx.conf (2 workers, access log on); the store file on $(df -T "$work" | awk 'NR == 2 {print $2}')"
echo "- each run: fresh processes and store, $games games of POST /v1/deal $(cat "$work/deal.json") ($nmoves moves each), wrk -t$threads -c$conns -d${secs}s, $rounds rounds"
echo "- paced: each connection waits $delay ms after each answer, for $(printf '%.0f' "$target") moves/s (half the file store's median) less what the answers' latency takes"
echo
echo "Commands, each distinct one once in the order first run (DIR: the temp dir; PORT, RPORT: free loopback ports):"
echo '```'
awk '!seen[$0]++' "$work/commands"
echo '```'
echo
echo "Each figure: median (min–max) of $rounds rounds; a ratio is the median (min–max) of the rounds' ratios, each round's figure over the baseline's in the same round. Moves/s count 2xx answers only."
echo
echo "| set-up | moves/s, saturated | vs file | paced at, moves/s | p50 ms | vs file | p99 ms | vs file |"
echo "|---|---|---|---|---|---|---|---|"
row "file: one replica, embedded store, direct" sat file sat file
row "redis1: one replica on Redis, direct" sat redis1 sat file
row "nginx2: two replicas on Redis behind nginx" sat nginx2 sat file
echo
echo "The fan-out, nginx2 with $streams streams open against none (ratios: with / without, same round):"
echo
echo "| nginx2 | moves/s, saturated | vs none | paced at, moves/s | p50 ms | vs none | p99 ms | vs none |"
echo "|---|---|---|---|---|---|---|---|"
row "no streams" sat nostreams sat nostreams
row "$streams streams" sat streams sat nostreams
echo
echo "Every run (non-2xx and socket errors should be 0; streams: complete ones, and events received of those expected):"
echo
echo "| run | load avg | delay ms | req/s 2xx | p50 ms | p99 ms | max ms | non-2xx | socket errors | streams |"
echo "|---|---|---|---|---|---|---|---|---|---|"
bad=0
for r in "${runs[@]}"; do
  echo "| $r | ${R[$r.load]} | ${R[$r.delay]} | $(printf '%.0f' "${R[$r.rps2xx]}") | $(ms "${R[$r.p50_us]}") | $(ms "${R[$r.p99_us]}") | $(ms "${R[$r.max_us]}") | ${R[$r.non2xx]} | ${R[$r.sockerr]} | ${R[$r.streams]} |"
  bad=$((bad + ${R[$r.non2xx]} + ${R[$r.sockerr]}))
  if [ "${R[$r.watch]}" = 1 ] && [ "${R[$r.w_complete]}" != "$streams" ]; then bad=$((bad + 1)); fi
done
echo
if [ -s "$work/errors" ]; then
  echo "Logs with errors ($(wc -l <"$work/errors") lines; the first 10):"
  echo '```'
  head -10 "$work/errors"
  echo '```'
fi
if [ "$bad" -ne 0 ]; then fail "$bad non-2xx answers, socket errors or incomplete streams"; fi
