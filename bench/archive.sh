#!/usr/bin/env bash
# The archive's throughput (crates/archive), on a redb file and, when one
# is named, on PostgreSQL:
#   - inserts a second: one writer, batches of 100 games of ~2 KiB each,
#     each batch durable before the next, for SECONDS;
#   - an export of one player's GAMES games (one in eight games archived
#     between them another player's), streamed newest first: games a
#     second, and the process's peak RSS (/usr/bin/time -f %M) for the
#     whole export and for its first tenth, which should be alike: an
#     export holds one batch at a time.
# Compare with lichess's export rate for one's own games: 60 a second.
#   bench/archive.sh [SECONDS, default 10] [GAMES, default 100000]
# Env: LINKPATH_BENCH_POSTGRES, a PostgreSQL URL (a role that may create
# databases): the PostgreSQL runs make a database of their own there
# (with psql) and drop it on exit. Unset: the file alone.
# Files go in a scratch folder removed on exit; nothing listens.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
games=${2:-100000}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 1; }
cargo build --release --locked --quiet -p linkpath-archive --example archive_bench
bench=target/release/examples/archive_bench

work=$(mktemp -d)
database=
cleanup() {
  if [ -n "$database" ]; then
    psql -q "$LINKPATH_BENCH_POSTGRES" -c "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# run SPEC LABEL: the inserts, the fill, and the two exports on SPEC.
run() {
  local spec=$1 label=$2
  echo "== $label"
  "$bench" insert "$spec" "$seconds"
  "$bench" fill "$spec" player1 "$games"
  local tenth=$((games / 10))
  /usr/bin/time -f "peak RSS %M KiB" "$bench" export "$spec" player1 "$tenth"
  /usr/bin/time -f "peak RSS %M KiB" "$bench" export "$spec" player1
}

run "file:$work/archive.redb" "redb file ($work is on $(df --output=source "$work" | tail -1))"

if [ -n "${LINKPATH_BENCH_POSTGRES:-}" ]; then
  database="linkpath_bench_$$"
  psql -q "$LINKPATH_BENCH_POSTGRES" -c "CREATE DATABASE \"$database\""
  url=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$LINKPATH_BENCH_POSTGRES" "$database")
  run "$url" "PostgreSQL ($(psql -Atq "$LINKPATH_BENCH_POSTGRES" -c 'SHOW server_version'), database $database)"
fi
