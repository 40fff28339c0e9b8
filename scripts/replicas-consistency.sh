#!/usr/bin/env bash
# Two replicas on one Redis behind nginx, one of them killed mid-flood, on
# loopback: a redis-server of its own on a free port, two release
# `linkpath serve` on it, and Debian's nginx running
# deploy/compose/nginx.conf with only the addresses changed (as
# scripts/nginx-test.sh runs it). 20 clients play 20 games at once, one
# each, every request through nginx (so to either replica): a seeded deal
# with gravity, its clearing sequence move by move, each move with an
# Idempotency-Key and sent again with the same key on 502, 503, 504 or a
# connection error, and the game read back every 8 moves. Halfway through
# the moves, replica 1 is killed with SIGKILL. Shows:
#
#   1. every game won, every client's moves acknowledged;
#   2. each game's replay (GET /v1/games/{id}/replay) is exactly the moves
#      its client had acknowledged, in order; played again
#      (POST /v1/replays) it ends on the game as stored (board, version,
#      status);
#   3. the version after each acknowledged move is one more than before
#      (1, 2, 3, ... without a gap), and every read of a game is at least
#      at the version its client last had acknowledged, whichever replica
#      answered;
#   4. no Idempotency-Key applied twice: the replay has as many moves as
#      distinct keys were acknowledged.
#
# and prints the requests, the clients' retries and the 5xx they saw,
# nginx's own retries on the other replica, the moves and the time.
#
#   LINKPATH_BIN=target/release/linkpath scripts/replicas-consistency.sh
#
# Without LINKPATH_BIN it runs the Dockerfile's build first. About 6 s.
# Only 127.0.0.1; never the machine's own Redis. Stops, by PID, every
# process it started. Installs nginx and redis-server with apt-get if
# missing, without letting the packages start system services.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

two_replicas_behind_nginx consistency

cat >"$tmp/clients.py" <<'EOF'
import os, sys, threading, time, uuid
from nginx_client import Client, count, lock, summary

port, tmp = int(sys.argv[1]), sys.argv[2]
CLIENTS = 20
DEAL = {"width": 12, "height": 8, "types": 24, "rules": "shisen-sho", "gravity": "down"}
MOVES = 12 * 8 // 2                 # a clearing sequence's length
HALF = CLIENTS * MOVES // 2

failures = []
games = {}                          # id -> [(key, move, version)]
halfway = threading.Event()
start = threading.Barrier(CLIENTS)

def failed(message):
    with lock:
        failures.append(message)

def player(n):
    client = Client(port)
    try:
        deal = client.until("POST", "/v1/deal", 200, dict(DEAL, seed=100 + n))
        game = client.until("POST", "/v1/games", 201, dict(DEAL, seed=100 + n), str(uuid.uuid4()))
        if game["board"] != deal["board"] or len(deal["moves"]) != MOVES:
            raise SystemExit(f"client {n}: the game's board is not the deal's")
        acks = games[game["id"]] = []
        # Dealt and created (a few after a 503 `overloaded`: two solver
        # slots a replica), then every client plays at once.
        start.wait(60)
        for i, move in enumerate(deal["moves"]):
            key = str(uuid.uuid4())
            answer = client.until("POST", f"/v1/games/{game['id']}/moves", 200, move, key)
            acks.append((key, move, answer["version"]))
            with lock:
                count["moves"] += 1
                if count["moves"] >= HALF and not halfway.is_set():
                    halfway.set()
                    open(f"{tmp}/half", "w").close()
            if i % 8 == 7:
                seen = client.until("GET", f"/v1/games/{game['id']}", 200)
                if seen["version"] < answer["version"]:
                    raise SystemExit(f"client {n}: read version {seen['version']} after "
                                     f"version {answer['version']} was acknowledged")
    except SystemExit as err:
        failed(f"client {n}: {err}")
        start.abort()
    except threading.BrokenBarrierError:
        failed(f"client {n}: another client failed, or dealing took over 60 s")

began = time.time()
threads = [threading.Thread(target=player, args=(n,)) for n in range(CLIENTS)]
for t in threads:
    t.start()
for t in threads:
    t.join(90)
    if t.is_alive():
        failed("a client did not finish within 90 s")
took = time.time() - began
if not os.path.exists(f"{tmp}/killed"):
    failed("replica 1 was not killed while the clients played")
if failures:
    for f in failures[:20]:
        print(f"FAILED: {f}", file=sys.stderr)
    sys.exit(1)

def ok(message):
    print(f"ok: {message}")

print(summary(CLIENTS, took))

check = Client(port)
won = 0
for game_id, acks in games.items():
    short = game_id[:8]
    replay = check.until("GET", f"/v1/games/{game_id}/replay", 200)
    now = check.until("GET", f"/v1/games/{game_id}", 200)
    again = check.until("POST", "/v1/replays", 200, replay)
    played = [{"from": a["from"], "to": a["to"]} for a in replay["actions"]]
    if [a["action"] for a in replay["actions"]] != ["move"] * len(played):
        failed(f"game {short}: actions other than moves in its replay")
    if played != [a[1] for a in acks]:
        failed(f"game {short}: the replay's {len(played)} moves are not the {len(acks)} acknowledged")
    if [a[2] for a in acks] != list(range(1, len(acks) + 1)):
        failed(f"game {short}: acknowledged versions {[a[2] for a in acks]}")
    if len(played) != len({a[0] for a in acks}):
        failed(f"game {short}: {len(played)} moves for {len({a[0] for a in acks})} distinct keys")
    if now["version"] != len(acks):
        failed(f"game {short}: at version {now['version']}, {len(acks)} moves acknowledged")
    for field in ("board", "version", "status", "tiles_left"):
        if again[field] != now[field]:
            failed(f"game {short}: {field} {again[field]!r} played again, {now[field]!r} stored")
    won += now["status"] == "won"
if won != CLIENTS:
    failed(f"{won} games won of {CLIENTS}")
if failures:
    for f in failures[:20]:
        print(f"FAILED: {f}", file=sys.stderr)
    sys.exit(1)
moves = sum(len(a) for a in games.values())
ok(f"{CLIENTS} games won, {moves} moves acknowledged ({MOVES} a game)")
ok("each game's replay is its client's acknowledged moves, in order; played again "
   "(POST /v1/replays) it ends on the stored board, version and status")
ok(f"versions 1 to {MOVES} in every game without a gap; every read at least at the "
   "version last acknowledged")
ok(f"no Idempotency-Key applied twice: {moves} distinct keys acknowledged, {moves} moves in the replays")
EOF

step "20 clients, 20 games, through nginx; replica 1 killed halfway"
PYTHONPATH=scripts python3 "$tmp/clients.py" "$nginx_port" "$tmp" >"$tmp/clients.out" 2>&1 &
clients_pid=$!; pids+=("$clients_pid")
for _ in $(seq 1200); do
  [ -e "$tmp/half" ] && break
  kill -0 "$clients_pid" 2>/dev/null || break
  sleep 0.01
done
[ -e "$tmp/half" ] || { cat "$tmp/clients.out" >&2; fail "the clients did not reach half their moves"; }
kill_hard "${replica_pids[0]}"
touch "$tmp/killed"
echo "replica 1 (pid ${replica_pids[0]}) killed with SIGKILL at $((SECONDS - started)) s"

step "the checks"
clients_status=0
wait "$clients_pid" || clients_status=$?
forget "$clients_pid"
cat "$tmp/clients.out"
[ "$clients_status" = 0 ] || fail "see above"
# nginx's own retries: a request it sent to the other replica after the
# first failed (502: refused, reset or closed; 503: busy).
retried=$(grep -cE 'upstream_status=\[[0-9]+, ' "$tmp/nginx.access.log" || true)
after_kill=$(grep -cE "upstream=\[127.0.0.1:${ports[0]}, 127.0.0.1:${ports[1]}\] upstream_status=\[502, 200\]" \
  "$tmp/nginx.access.log" || true)
# Requests replica 1 had read when it was killed: nginx saw the
# connection close or reset before an answer. A game's POST among them
# is not sent on (deploy/compose/nginx.conf): its client gets 502 and
# sends it again with its key.
cut=$(grep -cE '(prematurely closed connection|reset by peer) while reading response header' \
  "$tmp/nginx.error.log" || true)
echo "ok: nginx sent $retried requests on to the other replica ($after_kill after replica 1 failed them); the kill cut $cut requests mid-request"
grep -m 2 -E 'upstream_status=\[502, 200\]' "$tmp/nginx.access.log" | sed 's/^/  /' || true
if grep -q 'panicked' "$tmp/replica2.log"; then fail "replica 2 panicked"; fi
curl -sf "http://127.0.0.1:${ports[1]}/healthz" >/dev/null || fail "replica 2 is not serving"

printf '\nreplicas-consistency: passed in %s s\n' "$((SECONDS - started))"
