#!/usr/bin/env bash
# The archive's PostgreSQL stopped for 10 s under a flood of games, on
# loopback: a PostgreSQL cluster of its own (initdb, a free port, a
# scratch folder), a release `linkpath serve` on a store file archiving
# there, and 8 clients each creating and winning small games as fast as
# answers come, for 20 s. 5 s in, PostgreSQL is stopped (`pg_ctl stop -m
# fast`); 10 s later it is started again. Shows:
#
#   1. every answer was 2xx (games go on while the archive is away);
#   2. while it was away the archive fell behind (linkpath_archive_pending
#      above 0, linkpath_archive_lag_seconds growing), and its reads
#      (GET /v1/players/me/games/export) answered 503 with Retry-After;
#   3. once it was back it caught up by itself: pending 0, and the
#      archive holds exactly the games the clients won, each once.
#
#   LINKPATH_BIN=target/release/linkpath scripts/archive-fault.sh
#
# Without LINKPATH_BIN it runs the Dockerfile's build first. About 35 s.
# Needs PostgreSQL's server binaries (Debian's postgresql, installed if
# missing, its own cluster not started); never touches the machine's own
# PostgreSQL. Stops, by PID, every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

step "PostgreSQL's server binaries"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$pg_bin" ]; then
  apt_install postgresql
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
"$pg_bin/postgres" --version

step "the binary"
dockerfile_binary

tmp=$(mktemp -d)
clean_up_on_exit "$tmp"
# initdb refuses root: the cluster is the package's user's.
as=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$tmp"; as=(runuser -u postgres --); fi
pg_port=$(free_port)
pg() { "${as[@]}" "$pg_bin/pg_ctl" -D "$tmp/pg" -l "$tmp/postgres.log" "$@" >/dev/null; }
before_cleanup() {
  pg -m immediate stop 2>/dev/null || true
  [ -z "${KEEP_LOGS:-}" ] || cp "$tmp"/*.log "$KEEP_LOGS"/
}
step "PostgreSQL on 127.0.0.1:$pg_port"
"${as[@]}" "$pg_bin/initdb" -D "$tmp/pg" -U postgres --auth=trust >/dev/null
pg_start() { pg -w -o "-p $pg_port -k $tmp -c listen_addresses=127.0.0.1" start; }
pg_start
archive="postgres://postgres@127.0.0.1:$pg_port/postgres"

step "linkpath on a store file, archiving there"
linkpath_defaults
mkdir -p "$tmp/data" && chmod 777 "$tmp/data"
# A solver slot a client, so that no create waits for one.
start_replica "$tmp/linkpath.log" --shutdown-grace-ms 0 --workers 8 \
  --store "file:$tmp/data/games.redb" --archive "$archive" --archive-timeout-ms 1000
port=$replica_port
echo "127.0.0.1:$port, pid $replica_pid"

cat >"$tmp/flood.py" <<'EOF'
import http.client, json, os, sys, threading, time

port, tmp = int(sys.argv[1]), sys.argv[2]
CLIENTS, SECONDS = 8, 20
BOARD = {"board": ["A.A", "B.B"], "rules": "lianliankan"}
MOVES = [{"from": [0, 0], "to": [2, 0]}, {"from": [0, 1], "to": [2, 1]}]

lock = threading.Lock()
statuses, won, failures = {}, [], []

def call(conn, method, path, body=None, token=None):
    headers = {"content-type": "application/json"} if body is not None else {}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    answer = conn.getresponse()
    raw = answer.read()
    with lock:
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    return answer.status, json.loads(raw) if raw else None

def client(n, token, until):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        while time.time() < until:
            status, game = call(conn, "POST", "/v1/games", BOARD, token)
            if status != 201:
                raise SystemExit(f"a create answered {status}: {game}")
            for move in MOVES:
                status, after = call(conn, "POST", f"/v1/games/{game['id']}/moves", move, token)
                if status != 200:
                    raise SystemExit(f"a move answered {status}: {after}")
            with lock:
                won.append(game["id"])
    except (SystemExit, OSError, http.client.HTTPException) as err:
        with lock:
            failures.append(f"client {n}: {err}")

# Games of no player, so that no player's bound on live games is met; a
# player signed up first for the export read while the archive is away.
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
status, me = call(conn, "POST", "/v1/players", {"name": "Reader"})
assert status == 201, me
with open(f"{tmp}/tokens", "w") as f:
    f.write(me["token"] + "\n")
until = time.time() + SECONDS
threads = [threading.Thread(target=client, args=(n, None, until)) for n in range(CLIENTS)]
for t in threads:
    t.start()
for t in threads:
    t.join(SECONDS + 60)
if failures:
    print("\n".join(failures[:10]), file=sys.stderr)
    sys.exit(1)
print(f"answers by status: {dict(sorted(statuses.items()))}; games won: {len(won)} (and one player signed up)")
with open(f"{tmp}/won", "w") as f:
    f.write("\n".join(won) + "\n")
EOF

metric() {
  curl -s "127.0.0.1:$port/metrics" | awk -v name="$1" '$1 == name { print $2 }'
}

step "8 clients winning games for 20 s; PostgreSQL stopped at 5 s for 10 s"
python3 "$tmp/flood.py" "$port" "$tmp" >"$tmp/flood.out" 2>&1 &
flood_pid=$!; pids+=("$flood_pid")
sleep 5
pg -m fast stop
stopped_at=$SECONDS
echo "PostgreSQL stopped at $((SECONDS - started)) s"
most_pending=0 most_lag=0 export_status=
while [ $((SECONDS - stopped_at)) -lt 10 ]; do
  sleep 0.5
  pending=$(metric linkpath_archive_pending); lag=$(metric linkpath_archive_lag_seconds)
  most_pending=$(python3 -c "print(max($most_pending, ${pending:-0}))")
  most_lag=$(python3 -c "print(max($most_lag, ${lag:-0}))")
done
token=$(head -1 "$tmp/tokens" 2>/dev/null || true)
# A player signed up before the stop: their export reads the archive.
export_status=$(curl -s -o "$tmp/export.json" -D "$tmp/export.headers" -w '%{http_code}' \
  "127.0.0.1:$port/v1/players/me/games/export" -H "authorization: Bearer ${token:-none}" || true)
pg_start
echo "PostgreSQL started again at $((SECONDS - started)) s, $((SECONDS - stopped_at)) s after"
flood_status=0
wait "$flood_pid" || flood_status=$?
forget "$flood_pid"
cat "$tmp/flood.out"
[ "$flood_status" = 0 ] || fail "a client failed"

step "the checks"
grep -qE '^answers by status: \{200: [0-9]+, 201: [0-9]+\}' "$tmp/flood.out" \
  || fail "an answer other than 200 or 201"
ok "every answer 2xx while the archive was away"
python3 -c "import sys; sys.exit(0 if $most_pending > 0 else 1)" \
  || fail "linkpath_archive_pending stayed 0 while PostgreSQL was stopped"
ok "the archive fell behind: pending up to $most_pending games, lag up to $most_lag s"
[ -n "$token" ] || fail "no player was signed up before the stop"
[ "$export_status" = 503 ] && grep -qi '^retry-after:' "$tmp/export.headers" \
  || fail "an export while PostgreSQL was stopped answered $export_status"
ok "an export while it was away: 503 with Retry-After ($(head -c 120 "$tmp/export.json"))"
caught_up=
for _ in $(seq 300); do
  pending=$(metric linkpath_archive_pending)
  if [ "${pending:-1}" = 0 ]; then caught_up=1; break; fi
  sleep 0.1
done
[ -n "$caught_up" ] || fail "the archive did not catch up within 30 s: $pending pending"
ok "caught up by itself $((SECONDS - started)) s in: linkpath_archive_pending 0"
psql -qtA "$archive" -c 'SELECT id FROM archived_games' | sort >"$tmp/archived"
sort "$tmp/won" | sed '/^$/d' >"$tmp/won.sorted"
won=$(wc -l <"$tmp/won.sorted"); archived=$(wc -l <"$tmp/archived")
diff -q "$tmp/won.sorted" "$tmp/archived" >/dev/null \
  || fail "the archive holds $archived games, $won were won (diff: $(diff "$tmp/won.sorted" "$tmp/archived" | head -3 | tr '\n' ' '))"
ok "the archive holds exactly the $won games won, each once"
if grep -q 'panicked' "$tmp/linkpath.log"; then fail "the server panicked"; fi

printf '\narchive-fault: passed in %s s\n' "$((SECONDS - started))"
