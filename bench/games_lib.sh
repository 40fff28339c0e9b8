# shellcheck shell=bash disable=SC2154 # the settings named below are the script's
# Sourced by bench/games.sh and bench/players.sh: a fresh server per run,
# one bounded wrk run of bench/games_wrk.lua against it with the server's
# own counts from /metrics, and the pacing that finds a fixed rate.
# Expects, set by the script: bin, work, secs, conns, threads, games,
# workers, lua (bench/games_wrk.lua), prep (the games_prep.py command, an
# array) and runs (an array the runs' names are added to); `port` and
# `server_pid` belong to the server running. bench/common.sh's
# scratch_space stops a server left running on exit.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_server STORE: a fresh server (and, for a file store, a fresh file).
# Guest sign-up is on, as by default, whatever the environment says.
start_server() {
  port=$(free_port)
  rm -f "$work/games.redb"
  LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_STORE=$1 LINKPATH_WORKERS=$workers LINKPATH_GUEST_SIGN_UP=true \
    RUST_LOG=warn "$bin" serve >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && return 0; sleep 0.1; done
  echo "server did not come up:" >&2; cat "$work/server.log" >&2; exit 1
}
# stop_server: stops the server by its PID; a log line naming an error
# is reported, except a request's 4xx answer (a refusal the checks expect,
# or one the run's answers by status show).
stop_server() {
  kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
  if server_errors | grep -q .; then
    echo "server log mentions errors:" >&2; server_errors | head -5 >&2
    server_errors >>"$work/server-errors.log"
  fi
}
server_errors() { grep -iE 'panic|error' "$work/server.log" | grep -vE ' status=4[0-9][0-9] error_code=' || true; }

# metrics FILE ROUTE: the answers to ROUTE by status ("200:N 409:N") and
# in all, and the store's read and write counts and seconds, from the
# server's /metrics.
metrics() {
  curl -sf "127.0.0.1:$port/metrics" | awk -v route="$2" '
    index($0, "linkpath_http_requests_total{") == 1 && index($0, "route=\"" route "\"") {
      match($0, /status="[0-9]+"/); s = substr($0, RSTART + 8, RLENGTH - 9); n[s] += $NF; all += $NF }
    /^linkpath_store_duration_seconds_(sum|count)\{/ {
      match($0, /operation="[a-z]+"/); op = substr($0, RSTART + 11, RLENGTH - 12)
      kind = ($0 ~ /_sum\{/) ? "sum" : "count"; st[op "_" kind] += $NF }
    END {
      line = ""; for (s in n) if (n[s] > 0) line = line s ":" n[s] " "
      printf "codes=%s\n", line
      printf "read_count=%d read_sum=%.6f write_count=%d write_sum=%.6f answers=%d\n",
        st["read_count"], st["read_sum"], st["write_count"], st["write_sum"], all }' >"$1"
}

# route_of MODE: the route a run's requests go to.
route_of() {
  case $1 in
    play) echo /v1/play ;;
    signup) echo /v1/players ;;
    *) echo "/v1/games/{id}/moves" ;;
  esac
}

# what MODE STORE: the line naming a run's endpoint.
what() {
  case $1 in
    play) echo "POST /v1/play" ;;
    signup) echo "sign-up, --store ${2%%:*}" ;;
    signed) echo "signed-in move, --store ${2%%:*}" ;;
    *) echo "move, --store ${2%%:*}" ;;
  esac
}

# wrk_run NAME MODE STORE [DELAY_MS] [SECONDS]: a fresh server with STORE,
# then one bounded wrk run. MODE game: GAMES anonymous games are created
# first; signed: GAMES games each of a player of its own, moved with its
# token; play: /v1/play; signup: POST /v1/players. Its LPSTAT fields land
# in shell variables NAME_requests, NAME_p99_us, ..., and NAME_rps,
# NAME_rps2xx, NAME_codes (the run's answers by status), NAME_write_us
# (mean store write), NAME_read_us, NAME_reads (store reads an answer),
# NAME_writes, NAME_create_s (seconds to create the games).
wrk_run() {
  local name=$1 mode=$2 store=$3 delay=${4:-} d=${5:-$secs} route
  route=$(route_of "$mode")
  start_server "$store"
  printf -v "${name}_create_s" '%s' -
  case $mode in
    game) printf -v "${name}_create_s" '%s' "$("${prep[@]}" create "$port" "$games" "$work")" ;;
    signed) printf -v "${name}_create_s" '%s' "$("${prep[@]}" create "$port" "$games" "$work" --players)" ;;
  esac
  metrics "$work/before" "$route"
  echo "\$ LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_STORE=$store LINKPATH_WORKERS=$workers LINKPATH_GUEST_SIGN_UP=true RUST_LOG=warn $bin serve" >>"$work/commands"
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
  # The run's own store calls and answers: after minus before (the
  # games' creation, and its checks).
  local codes rc rs wc ws n
  codes=$(paste -d' ' <(sed -n 1p "$work/before") <(sed -n 1p "$work/after") | awk '{
    sub(/^codes=/, "", $0); split($0, parts, " codes=")
    nb = split(parts[1], b, " "); for (i = 1; i <= nb; i++) { split(b[i], kv, ":"); was[kv[1]] = kv[2] }
    na = split(parts[2], a, " "); for (i = 1; i <= na; i++) { split(a[i], kv, ":"); d = kv[2] - was[kv[1]]; if (d > 0) out = out kv[1] ":" d " " }
    sub(/ $/, "", out); print out }')
  read -r rc rs wc ws n < <(paste -d' ' <(sed -n 2p "$work/before") <(sed -n 2p "$work/after") | awk '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[i] = kv[2] }
    print v[6] - v[1], v[7] - v[2], v[8] - v[3], v[9] - v[4], v[10] - v[5] }')
  printf -v "${name}_codes" '%s' "${codes:-none}"
  printf -v "${name}_answers" '%s' "$n"
  printf -v "${name}_read_us" '%s' "$(if [ "$rc" -gt 0 ]; then printf '%.0f' "$(echo "$rs * 1000000 / $rc" | bc -l)"; else echo -; fi)"
  printf -v "${name}_write_us" '%s' "$(if [ "$wc" -gt 0 ]; then printf '%.0f' "$(echo "$ws * 1000000 / $wc" | bc -l)"; else echo -; fi)"
  printf -v "${name}_reads" '%s' "$(if [ "$n" -gt 0 ]; then printf '%.2f' "$(echo "$rc / $n" | bc -l)"; else echo -; fi)"
  printf -v "${name}_writes" '%s' "$(if [ "$n" -gt 0 ]; then printf '%.2f' "$(echo "$wc / $n" | bc -l)"; else echo -; fi)"
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
minimum() { printf '%s\n' "$@" | sort -g | head -1; }
maximum() { printf '%s\n' "$@" | sort -g | tail -1; }

# paced NAME MODE STORE TARGET: calibrates, then runs NAME paced at TARGET
# req/s. Pacing: each connection waits D ms after each answer, so it asks
# for 1000 / (D + L) req/s, L the time an answer takes (which itself
# depends on the load). Short calibration runs (at most 3, 2 s each or
# secs if shorter, each on a fresh server) look for the D that gives the
# target rate within 5%: D1 = 1000 * C / target, then secant steps on the
# per-connection cycle 1000 * C / rate; the measured run uses the
# calibrated D whose rate came closest.
paced() {
  local name=$1 mode=$2 store=$3 target=$4 cyc secs_calib d pd='' py='' y nd err best_d='' best_err='' k
  cyc=$(echo "1000 * $conns / $target" | bc -l)
  secs_calib=$(( secs < 2 ? secs : 2 ))
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

# runs_table: every run in `runs`, one row each.
runs_table() {
  echo "| run | endpoint | seconds | delay | requests | req/s | req/s 2xx | p50 | p99 | max | answers by status | socket errors | past end | store reads, writes an answer | store read | store write | games created in |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  local r
  for r in "${runs[@]}"; do
    declare -n q=${r}_requests rr=${r}_rps r2=${r}_rps2xx p5=${r}_p50_us p9=${r}_p99_us mx=${r}_max_us \
      s=${r}_sockerr w=${r}_wrapped c=${r}_codes sr=${r}_read_us sw=${r}_write_us cs=${r}_create_s \
      mo=${r}_mode st=${r}_store dl=${r}_delay sc=${r}_secs nr=${r}_reads nw=${r}_writes
    echo "| $r | $(what "$mo" "$st") | $sc | ${dl:-none} | $q | $rr | $r2 | $(ms "$p5") | $(ms "$p9") | $(ms "$mx") | $c | $s | $w | $nr, $nw | $(us "$sr") | $(us "$sw") | $(if [ "$cs" = - ]; then echo -; else echo "$cs s"; fi) |"
    unset -n q rr r2 p5 p9 mx s w c sr sw cs mo st dl sc nr nw
  done
}
