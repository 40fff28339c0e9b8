#!/usr/bin/env bash
# Races across two replicas on one Redis behind nginx, one replica killed
# mid-race, on loopback: a redis-server of its own on a free port, two
# release `linkpath serve` on it, and Debian's nginx running
# deploy/compose/nginx.conf with only the addresses changed (as
# scripts/nginx-test.sh runs it). 8 two-player matches at once, every
# request through nginx (so to either replica): each player signs up, the
# first creates the match and the second joins it, each under an
# Idempotency-Key; the countdown is run out by whichever replica comes
# first; then each player plays their own game's clearing sequence, move
# by move, each move under a key and sent again with it on 502, 503, 504
# or a connection error, until the board is clear or the race is over
# (409 game_over). A watcher a match reads its event stream, and reads it
# again from its Last-Event-ID when the stream breaks. Halfway through
# the moves, replica 1 is killed with SIGKILL. Shows:
#
#   1. every match finished, won by a player who cleared, and the result
#      its watcher heard last is the one stored;
#   2. each player's replay (the result's link) is exactly the moves the
#      player had acknowledged, in order, then `race_over` for a game the
#      race stopped; played again (POST /v1/replays) it ends on the game
#      as stored;
#   3. the timers fired once: each player holds one game, their seat's
#      (a race begun twice would have dealt a second), and each rating
#      moved once, from the start (1500) to the result's;
#   4. no Idempotency-Key applied twice.
#
#   LINKPATH_BIN=target/release/linkpath scripts/replicas-match.sh
#
# Without LINKPATH_BIN it runs the Dockerfile's build first. About 10 s.
# Only 127.0.0.1; never the machine's own Redis. Stops, by PID, every
# process it started. Installs nginx and redis-server with apt-get if
# missing, without letting the packages start system services.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

two_replicas_behind_nginx match

cat >"$tmp/races.py" <<'EOF'
import http.client, json, os, sys, threading, time, uuid
from nginx_client import HTTP_TIMEOUT, Client, count, lock, summary

port, tmp = int(sys.argv[1]), sys.argv[2]
MATCHES = 8
DEAL = {"width": 8, "height": 6, "types": 12, "rules": "shisen-sho"}
MOVES = 8 * 6 // 2                  # a clearing sequence's length
HALF = MATCHES * MOVES // 2         # about half the moves the races make
START = {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06}

failures = []
matches = [{"id": None, "made": threading.Event(), "seats": {}, "heard": None}
           for _ in range(MATCHES)]
halfway = threading.Event()
start = threading.Barrier(2 * MATCHES)

def failed(message):
    with lock:
        failures.append(message)

def key():
    return str(uuid.uuid4())

def player(n):
    race, seat = matches[n // 2], n % 2
    client = Client(port)
    try:
        me = client.until("POST", "/v1/players", 201, {"name": f"Racer {n}"}, key())
        client.token = me["token"]
        if seat == 0:
            made = client.until("POST", "/v1/matches", 201,
                                {"game": dict(DEAL, seed=200 + n), "seats": 2}, key())
            race["id"] = made["id"]
            race["made"].set()
        elif not race["made"].wait(60):
            raise SystemExit("the match was not made within 60 s")
        else:
            client.until("POST", f"/v1/matches/{race['id']}/join", 200, {}, key())
        give_up = time.time() + 30
        while True:
            shown = client.until("GET", f"/v1/matches/{race['id']}", 200)
            mine = [s for s in shown["players"] if s["player"] == me["id"]]
            if shown["status"] == "playing" and mine and mine[0].get("game"):
                break
            if time.time() > give_up:
                raise SystemExit(f"the race did not begin within 30 s: {shown['status']}")
            time.sleep(0.05)
        game = mine[0]["game"]
        board = client.until("GET", f"/v1/games/{game}", 200)["board"]
        moves = client.until("POST", "/v1/clear", 200, {"board": board, "rules": DEAL["rules"]})["moves"]
        if len(moves) != MOVES:
            raise SystemExit(f"a clearing sequence of {len(moves)} moves")
        acks = []
        race["seats"][me["id"]] = {"token": me["token"], "game": game, "acks": acks}
        start.wait(60)
        for move in moves:
            k = key()
            status, answer = client.answered("POST", f"/v1/games/{game}/moves", {200, 409}, move, k)
            if status == 409:
                if answer["error"]["code"] != "game_over":
                    raise SystemExit(f"a move refused: {json.dumps(answer)[:300]}")
                break
            acks.append((k, move, answer["version"]))
            with lock:
                count["moves"] += 1
                if count["moves"] >= HALF and not halfway.is_set():
                    halfway.set()
                    open(f"{tmp}/half", "w").close()
            # The second seat thinks a little longer: the first clears first,
            # mostly, and the second's game is stopped mid-board.
            time.sleep(0.002 if seat == 0 else 0.02)
    except SystemExit as err:
        failed(f"player {n}: {err}")
        start.abort()
    except threading.BrokenBarrierError:
        failed(f"player {n}: another player failed, or setting up took over 60 s")

def watch(race):
    """Reads the match's events until the finished match, from the last
    event id again whenever the stream breaks; keeps the last match heard."""
    if not race["made"].wait(60):
        return
    last_id, give_up = None, time.time() + 120
    while time.time() < give_up:
        headers = {"last-event-id": last_id} if last_id else {}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT)
        try:
            conn.request("GET", f"/v1/matches/{race['id']}/events", headers=headers)
            answer = conn.getresponse()
            if answer.status == 204:
                return
            if answer.status != 200:
                time.sleep(0.1)
                continue
            event, data = None, None
            while True:
                line = answer.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("id: "):
                    last_id = line[4:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                elif line == "" and event:
                    if event == "match":
                        race["heard"] = data
                        if data["status"] == "finished":
                            return
                    event, data = None, None
        except (OSError, http.client.HTTPException):
            time.sleep(0.1)
        finally:
            conn.close()

began = time.time()
threads = [threading.Thread(target=player, args=(n,)) for n in range(2 * MATCHES)]
watchers = [threading.Thread(target=watch, args=(race,)) for race in matches]
for t in threads + watchers:
    t.start()
for t in threads:
    t.join(120)
    if t.is_alive():
        failed("a player did not finish within 120 s")
took = time.time() - began
if not os.path.exists(f"{tmp}/killed"):
    failed("replica 1 was not killed while the players raced")

def stop_if_failed():
    if failures:
        for f in failures[:20]:
            print(f"FAILED: {f}", file=sys.stderr)
        sys.exit(1)

stop_if_failed()
print(summary(2 * MATCHES, took))

check = Client(port)
moves = keys = stopped = 0
for n, race in enumerate(matches):
    give_up = time.time() + 30
    while True:
        shown = check.until("GET", f"/v1/matches/{race['id']}", 200)
        if shown["status"] == "finished" or time.time() > give_up:
            break
        time.sleep(0.05)
    if shown["status"] != "finished":
        failed(f"match {n}: {shown['status']} 30 s after its players stopped")
        continue
    result = shown["result"]
    if not any(r["place"] == 1 and r["finish"] == "cleared" for r in result):
        failed(f"match {n}: nobody who cleared placed first: {result}")
    for watcher in watchers:
        watcher.join(30)
    if race["heard"] is None or race["heard"].get("result") != result:
        failed(f"match {n}: its stream's last match is not the result stored")
    for placed in result:
        seat = race["seats"][placed["player"]]
        check.token = seat["token"]
        acks, short = seat["acks"], seat["game"][:8]
        replay = check.until("GET", placed["replay"], 200)
        now = check.until("GET", f"/v1/games/{seat['game']}", 200)
        again = check.until("POST", "/v1/replays", 200, replay)
        actions = [a["action"] for a in replay["actions"]]
        ending = ["race_over"] if now["status"] == "race_over" else []
        stopped += bool(ending)
        if actions != ["move"] * len(acks) + ending:
            failed(f"game {short}: actions {actions[-3:]}, {len(acks)} moves acknowledged, {now['status']}")
        played = [{"from": a["from"], "to": a["to"]} for a in replay["actions"] if a["action"] == "move"]
        if played != [a[1] for a in acks]:
            failed(f"game {short}: the replay's {len(played)} moves are not the {len(acks)} acknowledged")
        if [a[2] for a in acks] != list(range(1, len(acks) + 1)):
            failed(f"game {short}: acknowledged versions {[a[2] for a in acks]}")
        for field in ("board", "version", "status", "tiles_left", "score"):
            if again[field] != now[field]:
                failed(f"game {short}: {field} {again[field]!r} played again, {now[field]!r} stored")
        held = check.until("GET", "/v1/players/me/games", 200)["games"]
        if [g["id"] for g in held] != [seat["game"]]:
            failed(f"game {short}: its player holds {len(held)} games, not their seat's alone")
        rating = check.until("GET", "/v1/players/me", 200).get("rating")
        if placed["rating_before"] != START or rating != placed["rating_after"]:
            failed(f"game {short}: rating {placed['rating_before']} -> {placed['rating_after']}, "
                   f"the player's now {rating}")
        moves += len(acks)
        keys += len({a[0] for a in acks})
stop_if_failed()
def ok(message):
    print(f"ok: {message}")
ok(f"{MATCHES} matches finished, each won by a player who cleared; each stream's last "
   "match is the result stored")
ok(f"each replay is its player's acknowledged moves, in order, then race_over for the "
   f"{stopped} games the race stopped; played again it ends on the stored game")
ok(f"timers fired once: each of {2 * MATCHES} players holds one game, their seat's; each "
   "rating moved once, from 1500 to the result's")
ok(f"no Idempotency-Key applied twice: {keys} distinct keys acknowledged, {moves} moves in the replays")
EOF

step "8 two-player races through nginx; replica 1 killed halfway"
PYTHONPATH=scripts python3 "$tmp/races.py" "$nginx_port" "$tmp" >"$tmp/races.out" 2>&1 &
races_pid=$!; pids+=("$races_pid")
for _ in $(seq 1200); do
  [ -e "$tmp/half" ] && break
  kill -0 "$races_pid" 2>/dev/null || break
  sleep 0.01
done
[ -e "$tmp/half" ] || { cat "$tmp/races.out" >&2; fail "the players did not reach half their moves"; }
kill_hard "${replica_pids[0]}"
touch "$tmp/killed"
echo "replica 1 (pid ${replica_pids[0]}) killed with SIGKILL at $((SECONDS - started)) s"

step "the checks"
races_status=0
wait "$races_pid" || races_status=$?
forget "$races_pid"
cat "$tmp/races.out"
[ "$races_status" = 0 ] || fail "see above"
retried=$(grep -cE 'upstream_status=\[[0-9]+, ' "$tmp/nginx.access.log" || true)
cut=$(grep -cE '(prematurely closed connection|reset by peer) while reading response header' \
  "$tmp/nginx.error.log" || true)
echo "ok: nginx sent $retried requests on to the other replica; the kill cut $cut requests mid-request"
if grep -q 'panicked' "$tmp/replica2.log"; then fail "replica 2 panicked"; fi
curl -sf "http://127.0.0.1:${ports[1]}/healthz" >/dev/null || fail "replica 2 is not serving"

printf '\nreplicas-match: passed in %s s\n' "$((SECONDS - started))"
