#!/usr/bin/env bash
# From `git clone` to green, as a new user meets it (README, "Set-up"): a
# fresh clone of this checkout's HEAD with an empty CARGO_HOME (every crate
# downloaded again), then the README's two commands one after the other:
#
#   1. `cargo run --release`, until `GET /healthz` answers 200 (then the
#      server is stopped by its PID);
#   2. `cargo test`, until it exits 0.
#
# Prints the wall time of each, their sum, the CPU seconds each used
# (children included: what an idle machine with this many cores bounds the
# wall time by) and the load average before and after, as a table.
#
#   bench/clone_to_green.sh            # clone of HEAD, in a scratch folder
#
# Needs git, curl and a Rust toolchain on PATH. Traffic: crates.io for the
# downloads, and 127.0.0.1 for the health check. The clone and its
# CARGO_HOME are deleted on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

export CARGO_HOME="$work/cargo-home"
mkdir -p "$CARGO_HOME"
# Serves on a port of its own; keeps its games in memory, not in the clone.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

commit=$(git rev-parse --short HEAD)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
git clone --quiet --no-local . "$work/linkpath"
cloned=$(date +%s.%N)

# CPU seconds of this shell's waited-for children so far (cutime and
# cstime of /proc/PID/stat, in clock ticks): read by PID, as `times` in a
# command substitution would report the subshell's children instead.
ticks=$(getconf CLK_TCK)
child_cpu() {
  awk -v ticks="$ticks" '{ printf "%.1f", ($16 + $17) / ticks }' "/proc/$$/stat"
}

cd "$work/linkpath"
cpu0=$(child_cpu)
LINKPATH_LISTEN=127.0.0.1:$port LINKPATH_STORE=memory cargo run --release >"$work/run.log" 2>&1 &
server_pid=$!
deadline=$((SECONDS + 3600))
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
  kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$work/run.log" >&2; echo "cargo run --release ended before serving" >&2; exit 1; }
  [ "$SECONDS" -lt "$deadline" ] || { echo "not serving within an hour" >&2; exit 1; }
  sleep 0.2
done
serving=$(date +%s.%N)
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=
cpu1=$(child_cpu)

if ! timeout 3600 cargo test >"$work/test.log" 2>&1; then
  tail -n 40 "$work/test.log" >&2
  echo "cargo test failed" >&2
  exit 1
fi
green=$(date +%s.%N)
cpu2=$(child_cpu)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
minutes() { awk -v s="$1" 'BEGIN { printf "%d min %d s", s / 60, s % 60 }'; }
cpu() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
total=$(seconds "$start" "$green")
echo "clone to green at $commit, $(nproc) cores, load average $load_before before and $load_after after"
echo
echo "| step | wall | CPU (user + system) |"
echo "|---|---|---|"
echo "| git clone | $(seconds "$start" "$cloned") s | |"
echo "| cargo run --release, to /healthz 200 | $(seconds "$cloned" "$serving") s | $(cpu "$cpu0" "$cpu1") s |"
echo "| cargo test | $(seconds "$serving" "$green") s | $(cpu "$cpu1" "$cpu2") s |"
echo "| clone to green | $total s ($(minutes "$total")) | $(cpu "$cpu0" "$cpu2") s |"
