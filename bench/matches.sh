#!/usr/bin/env bash
# Races over HTTP: MATCHES two-player matches at once on one server (1,000
# by default), every player playing their own game of the match's deal (a
# 14 x 6 Shisen-Sho deal, its 42 moves found once by /v1/clear) as fast as
# its answers come, each match's event stream read all along; against the
# baseline, in the same run, of the same players each playing a lone held
# game of the same deal the same way, with as many game streams read
# (bench/matches.mjs drives both, from one Node process).
#
# Reports, for each: moves acknowledged a second, and the stream's delay
# from a move's request to its event (p50, p99); then the races' rate over
# the lone games' (a ratio: what a match costs a move), and every answer
# by status (a race's loser gets one 409 game_over once the winner
# cleared; any other refusal fails the run).
#
# Goals:
#   races over lone games >= 0.8 (a move of a match costs at most a
#   quarter more than a lone game's)
#   reported, no goal: moves a second, stream delay p50 and p99
#
#   bench/matches.sh [store, default file]     # file, or memory
# Env: LINKPATH_BIN (default: cargo build --release --locked, then
# target/release/linkpath), MATCHES (1000). Loopback only; the server is
# stopped by its PID and the run is bounded (10 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
store_kind=${1:-file}
matches=${MATCHES:-1000}
linkpath_binary
scratch_space
case "$store_kind" in
  file) store="file:$work/games.redb" ;;
  memory) store=memory ;;
  *) echo "store: file or memory, not $store_kind" >&2; exit 2 ;;
esac
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Room for every player's connection and every stream at once; sign-ups
# all come from one address.
LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_STORE=$store RUST_LOG=warn \
  LINKPATH_MAX_CONNECTIONS=8192 LINKPATH_MAX_STREAMS=4096 LINKPATH_SIGN_UPS_PER_HOUR=1000000 \
  LINKPATH_MATCH_COUNTDOWN_MS=1000 \
  "$bin" serve >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "127.0.0.1:$port/healthz" >/dev/null || { echo "server did not come up:" >&2; cat "$work/server.log" >&2; exit 1; }
echo "# $(git rev-parse --short HEAD), store $store_kind, $matches matches, load $(cut -d' ' -f1-3 /proc/loadavg)"
BASE=http://127.0.0.1:$port MATCHES=$matches timeout 600 node bench/matches.mjs || { tail -5 "$work/server.log" >&2; exit 1; }
# Refusals are the run's own counts; a 503 `overloaded` is a setting-up
# call sent again while the solver slots deal (bench/matches.mjs), and a
# match whose countdown ended then begins on the sweeper's next pass.
errors() { grep -iE 'panic|error' "$work/server.log" | grep -vE ' status=4[0-9][0-9] error_code=| status=503 error_code="overloaded"| error=overloaded' || true; }
if errors | grep -q .; then
  echo "server log mentions errors:" >&2; errors | head -5 >&2; exit 1
fi
